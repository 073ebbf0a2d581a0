package scriptmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// The OpenAI Responses API, as Codex speaks it to a model provider of its config
// (wire_api = "responses"): POST <base_url>/responses with "stream": true, answered as
// server-sent events. A request is decoded into the same Body the Messages API fills
// (instructions as the system prompt, input items as messages: a function_call is an
// assistant tool_use block, a function_call_output a user tool_result), so that steps
// and the request helpers serve both clients alike; a reply's tool_use blocks become
// function_call items.

// ResponsesPath is the path Codex posts to when the provider's base_url is URL+"/v1".
const ResponsesPath = "/v1/responses"

type responsesBody struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []responsesTool   `json:"tools"`
	Stream       bool              `json:"stream"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Tools are a namespace's own (type "namespace").
	Tools []responsesTool `json:"tools"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// namespaced joins a namespace's name and one of its tools' as the request helpers name
// the tool (Codex's MCP tools: namespace mcp__<server>, tool <tool>, so
// mcp__<server>__<tool>, the name the model is told).
func namespaced(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "__" + name
}

// decodeResponses fills b from a Responses API request body.
func decodeResponses(raw []byte, b *Body) error {
	var rb responsesBody
	if err := json.Unmarshal(raw, &rb); err != nil {
		return err
	}
	b.Model, b.Stream = rb.Model, rb.Stream
	if rb.Instructions != "" {
		b.System = Blocks{{Type: "text", Text: rb.Instructions}}
	}
	for _, t := range rb.Tools {
		if t.Type != "namespace" {
			b.Tools = append(b.Tools, Tool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
			continue
		}
		for _, in := range t.Tools {
			b.Tools = append(b.Tools, Tool{Name: namespaced(t.Name, in.Name), Description: in.Description, InputSchema: in.Parameters, namespace: t.Name, bare: in.Name})
		}
	}
	for _, r := range rb.Input {
		var it responsesItem
		if err := json.Unmarshal(r, &it); err != nil {
			return err
		}
		switch it.Type {
		case "message", "":
			var c Blocks
			if len(it.Content) > 0 {
				if err := json.Unmarshal(it.Content, &c); err != nil {
					return err
				}
			}
			b.Messages = append(b.Messages, Message{Role: it.Role, Content: c})
		case "function_call", "custom_tool_call":
			args := it.Arguments
			if it.Type == "custom_tool_call" {
				in, _ := json.Marshal(map[string]string{"input": it.Input})
				args = string(in)
			}
			if args == "" {
				args = "{}"
			}
			b.Messages = append(b.Messages, Message{Role: "assistant", Content: Blocks{{Type: "tool_use", ID: it.CallID,
				Name: namespaced(it.Namespace, it.Name), Input: json.RawMessage(args)}}})
		case "function_call_output", "custom_tool_call_output":
			var out Blocks
			if len(it.Output) > 0 {
				if err := json.Unmarshal(it.Output, &out); err != nil {
					// {"content": …} in some versions: keep its text as it is
					out = Blocks{{Type: "text", Text: string(it.Output)}}
				}
			}
			b.Messages = append(b.Messages, Message{Role: "user", Content: Blocks{{Type: "tool_result", ToolUseID: it.CallID, Content: out}}})
		}
	}
	return nil
}

// streamResponses writes msg, the answer to r, as the Responses API's server-sent events.
func streamResponses(w http.ResponseWriter, r *Request, msg message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	id := "resp_" + msg.ID
	event("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}})
	for i, b := range msg.Content {
		var item map[string]any
		switch b.Type {
		case "tool_use":
			item = map[string]any{"type": "function_call", "id": "fc_" + msg.ID + "_" + strconv.Itoa(i), "call_id": b.ID,
				"name": b.Name, "arguments": string(b.Input), "status": "completed"}
			for _, t := range r.Body.Tools {
				if t.Name == b.Name && t.namespace != "" {
					item["namespace"], item["name"] = t.namespace, t.bare
				}
			}
		default:
			id := "msg_" + msg.ID + "_" + strconv.Itoa(i)
			event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"type": "message", "id": id,
				"role": "assistant", "status": "in_progress", "content": []any{}}})
			event("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": b.Text})
			item = map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": b.Text, "annotations": []any{}}}}
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	in, out := msg.Usage.InputTokens, msg.Usage.OutputTokens
	event("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": out, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": in + out}}})
}

package scriptmodel

import (
	"html"
	"regexp"
	"strings"
)

// Answer is the text the client sent back for the assistant's tool_use id: the user turn
// that carries its tool_result, every block of it (Claude sends a skill's body as a text
// block beside the tool_result "Launching skill: …"), and "" when there is none.
func (r *Request) Answer(id string) string {
	for i, m := range r.Body.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "tool_result" && b.ToolUseID == id {
				var sb strings.Builder
				// The turn runs until the next assistant message.
				for _, n := range r.Body.Messages[i:] {
					if n.Role == "assistant" {
						break
					}
					sb.WriteString(n.Content.Text())
				}
				return sb.String()
			}
		}
	}
	return ""
}

// AvailableSkill is one skill a client lists in its system prompt for the model (PI's
// <available_skills>).
type AvailableSkill struct {
	Name, Description, Location string
}

var (
	availableRe = regexp.MustCompile(`(?s)<available_skills>(.*?)</available_skills>`)
	skillRe     = regexp.MustCompile(`(?s)<skill>(.*?)</skill>`)
	fieldRe     = regexp.MustCompile(`(?s)<(name|description|location)>(.*?)</(?:name|description|location)>`)
)

// AvailableSkills parses every <available_skills> listing of the system prompt, in order.
func (r *Request) AvailableSkills() []AvailableSkill {
	var out []AvailableSkill
	for _, block := range availableRe.FindAllStringSubmatch(r.SystemText(), -1) {
		for _, sk := range skillRe.FindAllStringSubmatch(block[1], -1) {
			var s AvailableSkill
			for _, f := range fieldRe.FindAllStringSubmatch(sk[1], -1) {
				v := html.UnescapeString(strings.TrimSpace(f[2]))
				switch f[1] {
				case "name":
					s.Name = v
				case "description":
					s.Description = v
				case "location":
					s.Location = v
				}
			}
			out = append(out, s)
		}
	}
	return out
}

package assign

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// rewrite returns the target's file with its pluginDirs replaced by dirs (nil: the
// member is deleted). Every other member keeps its place and value; for a template slot
// only that slot's object inside "agents" changes, its other members kept in order.
// Values are re-indented the way jsonfile.Encode writes them, so a file already in that
// form (two spaces, one member a line) changes in the pluginDirs lines only.
//
// Values are set as raw JSON rather than through jsonfile.Set: encoding/json would
// escape <, > and & inside strings of the untouched slots.
func (t *located) rewrite(dirs []string) ([]byte, error) {
	ms, err := jsonfile.Members(t.data)
	if err != nil {
		return nil, err
	}
	if t.slot < 0 {
		ms, err = setDirs(ms, dirs)
	} else {
		ms, err = t.rewriteSlot(ms, dirs)
	}
	if err != nil {
		return nil, err
	}
	return jsonfile.Encode(ms)
}

func (t *located) rewriteSlot(ms []jsonfile.Member, dirs []string) ([]jsonfile.Member, error) {
	raw, _ := member(ms, "agents")
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || t.slot >= len(elems) {
		return nil, fmt.Errorf("%s: \"agents\" changed shape", t.File)
	}
	sm, err := jsonfile.Members(elems[t.slot])
	if err != nil {
		return nil, err
	}
	if sm, err = setDirs(sm, dirs); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == t.slot {
			e = object(sm)
		}
		if err := json.Compact(&b, e); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return setRaw(ms, "agents", b.Bytes()), nil
}

// setDirs sets or deletes the pluginDirs member.
func setDirs(ms []jsonfile.Member, dirs []string) ([]jsonfile.Member, error) {
	if dirs == nil {
		return jsonfile.Set(ms, "pluginDirs", nil)
	}
	raw, err := marshal(dirs)
	if err != nil {
		return nil, err
	}
	return setRaw(ms, "pluginDirs", raw), nil
}

// marshal encodes v without escaping <, > and &.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// setRaw replaces the value of key in place, or appends the member.
func setRaw(ms []jsonfile.Member, key string, raw json.RawMessage) []jsonfile.Member {
	for i := range ms {
		if ms[i].Key == key {
			ms[i].Value = raw
			return ms
		}
	}
	return append(ms, jsonfile.Member{Key: key, Value: raw})
}

// object writes members as a compact JSON object, values as written.
func object(ms []jsonfile.Member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

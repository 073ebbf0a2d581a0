package skill

import (
	"strconv"
	"strings"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"go.yaml.in/yaml/v3"
)

// metadata keeps a mapping of scalar values as their text (an unquoted 1.0 stays "1.0").
// Anything else is a warning and is ignored.
func (c *checker) metadata(line int, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		c.warnf(CodeFieldType, line, "/metadata",
			"metadata must be a mapping of keys to text, not a %s; write it as indented key: value lines (ignored)", kindName(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			c.warnf(CodeFieldType, k.Line+1, "/metadata",
				"metadata keys must be text, not a %s; use a plain key (ignored)", kindName(k))
			continue
		}
		if val.Kind != yaml.ScalarNode {
			c.warnf(CodeFieldType, val.Line+1, jsondoc.Pointer("metadata", k.Value),
				"metadata value %q must be text, not a %s; write it on one line (ignored)", k.Value, kindName(val))
			continue
		}
		if c.s.Metadata == nil {
			c.s.Metadata = make(map[string]string, len(v.Content)/2)
		}
		if isNull(val) {
			c.s.Metadata[k.Value] = ""
		} else {
			c.s.Metadata[k.Value] = val.Value
		}
	}
}

// allowedTools accepts the spec's space-separated string or a list of strings.
func (c *checker) allowedTools(line int, v *yaml.Node) {
	switch {
	case isNull(v):
	case v.Kind == yaml.ScalarNode:
		c.s.AllowedTools = strings.Fields(v.Value)
	case v.Kind == yaml.SequenceNode:
		for i, item := range v.Content {
			if item.Kind != yaml.ScalarNode || isNull(item) {
				c.warnf(CodeFieldType, item.Line+1, jsondoc.Pointer("allowed-tools", strconv.Itoa(i)),
					"allowed-tools entries must be tool names, not a %s; write one name per entry (ignored)", itemKind(item))
				continue
			}
			if t := strings.TrimSpace(item.Value); t != "" {
				c.s.AllowedTools = append(c.s.AllowedTools, t)
			}
		}
	default:
		c.warnf(CodeFieldType, line, "/allowed-tools",
			"allowed-tools must be a space-separated string or a list of tool names, not a %s (ignored)", kindName(v))
	}
}

// disableModelInvocation reads a YAML boolean; anything else is a warning and is ignored.
func (c *checker) disableModelInvocation(line int, v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		if b, err := strconv.ParseBool(strings.ToLower(v.Value)); err == nil {
			c.s.DisableModelInvocation = b
			return
		}
	}
	got := itemKind(v)
	if v.Kind == yaml.ScalarNode && !isNull(v) {
		got = strconv.Quote(v.Value)
	}
	c.warnf(CodeFieldType, line, "/disable-model-invocation",
		"disable-model-invocation must be true or false (unquoted), not %s; write disable-model-invocation: true (ignored)", got)
}

// paths judges each entry of the `paths` list (F8); see judgePath.
func (c *checker) paths(line int, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		c.warnf(CodeFieldType, line, "/paths",
			"paths must be a list of paths relative to the skill folder, not a %s; write each on its own \"- \" line (ignored)", kindName(v))
		return
	}
	env := newPathEnv(c.dir, c.opts)
	for i, item := range v.Content {
		ptr := jsondoc.Pointer("paths", strconv.Itoa(i))
		if item.Kind != yaml.ScalarNode {
			c.warnf(CodeFieldType, item.Line+1, ptr,
				"paths entries must be paths, not a %s; write one path per entry (ignored)", kindName(item))
			continue
		}
		entry := item.Value
		if isNull(item) {
			entry = ""
		}
		pe := env.judge(entry)
		if !pe.Accepted {
			c.warnf(CodePathsRefused, item.Line+1, ptr, "paths entry %q is refused: %s", entry, pe.Reason)
		}
		c.s.Paths = append(c.s.Paths, pe)
	}
}

func itemKind(n *yaml.Node) string {
	if isNull(n) {
		return "empty value"
	}
	return kindName(n)
}

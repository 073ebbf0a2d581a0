package app

import (
	"strings"
)

// pageAdvice is what the page offers instead of the command line's advice, by the reason of
// a refusal or the code of an error: buttons and fields of the page, never a command.
var pageAdvice = map[string]string{
	ReasonExists:         "choose Force to replace it, uninstall it first, or give another name",
	ReasonNotPlugin:      "choose the folder of one plugin (it holds plugin.json or .claude-plugin/plugin.json)",
	ReasonRule:           "nothing was installed",
	ReasonTampered:       "install the version you want again with Force",
	ReasonNotOurs:        "remove it by hand, or uninstall it anyway",
	ReasonNotInstallable: "install it from its own source instead",
	ReasonMarketplace:    "check the marketplace's folder or URL",
	CodeNotFound:         "nothing was changed",
	CodeIO:               "nothing was changed; check the source and try again",
}

// pageMessage is err's message for the page: its first line (what follows is the command
// line's detail), with the clauses that tell a command line what to type taken out (a
// clause that names a plugboard command, a --flag or a quoted `command`), and the page's own
// advice for reason (a Reason* or a Code*) in their place.
func pageMessage(msg, reason string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = nouns.Replace(msg)
	clauses := strings.Split(msg, "; ")
	kept := clauses[:0]
	for i, c := range clauses {
		if i > 0 && commandLine(c) {
			continue
		}
		kept = append(kept, c)
	}
	out := strings.TrimSuffix(strings.Join(kept, "; "), ":")
	if commandLine(out) {
		// the first clause itself names a command: keep the sentence, drop the command
		out = strings.TrimSpace(dropCommands(out))
	}
	if advice := pageAdvice[reason]; advice != "" && !strings.HasSuffix(out, advice) {
		out += "; " + advice
	}
	return out
}

// nouns names, as the page does, what the command line calls by its commands.
var nouns = strings.NewReplacer(
	"by plugboard install", "by Plugboard",
	"plugboard install made", "Plugboard installed",
	"by plugboard link", "by Plugboard's Link",
	"by the rule of plugboard inspect", "by Plugboard's rules",
)

// commandLine says whether s tells a person what to type: a plugboard command, a --flag
// or a `quoted command`.
func commandLine(s string) bool {
	return strings.Contains(s, "plugboard ") || strings.Contains(s, " --") || strings.Contains(s, "`")
}

// dropCommands removes the parenthesised parts of s that name a command, and any
// `quoted command`.
func dropCommands(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexAny(s, "(`")
		if i < 0 {
			b.WriteString(s)
			break
		}
		closer := ")"
		if s[i] == '`' {
			closer = "`"
		}
		j := strings.Index(s[i+1:], closer)
		if j < 0 {
			b.WriteString(s)
			break
		}
		part := s[i : i+1+j+1]
		b.WriteString(s[:i])
		if s[i] == '(' && !commandLine(part) {
			b.WriteString(part)
		}
		s = s[i+1+j+1:]
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

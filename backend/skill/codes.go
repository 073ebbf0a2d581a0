package skill

// Issue codes. They are stable API: tools and tests match on them, so a code is never
// renamed or reused for another meaning.
const (
	// Reading the file (Load).
	CodeMissing     = "skill.missing"      // no file named exactly SKILL.md (or the folder is missing)
	CodeNotRegular  = "skill.not-regular"  // SKILL.md is a folder, FIFO, device…
	CodeUnreadable  = "skill.unreadable"   // permission denied or another read error
	CodeTooLarge    = "skill.too-large"    // larger than capread.SkillMax
	CodeSymlinkLoop = "skill.symlink-loop" // SKILL.md or its folder is a symlink loop
	CodeEscapesRoot = "skill.escapes-root" // SKILL.md resolves outside the plugin root

	// Splitting and parsing the frontmatter (Parse).
	CodeInvalidUTF8           = "skill.invalid-utf8"
	CodeByteOrderMark         = "skill.byte-order-mark" // a warning: clients then find no frontmatter
	CodeNoFrontmatter         = "skill.no-frontmatter"
	CodeUnclosedFrontmatter   = "skill.unclosed-frontmatter"
	CodeFrontmatterTooLarge   = "skill.frontmatter-too-large"
	CodeInvalidYAML           = "skill.invalid-yaml" // syntax errors, duplicate keys, excessive depth
	CodeYAMLAlias             = "skill.yaml-alias"   // aliases (*x, <<: *x) are refused
	CodeFrontmatterNotMapping = "skill.frontmatter-not-mapping"

	// Agent Skills fields (errors).
	CodeNameMissing          = "skill.name-missing"
	CodeNameInvalid          = "skill.name-invalid"
	CodeNameTooLong          = "skill.name-too-long"
	CodeNameMismatch         = "skill.name-mismatch"
	CodeDescriptionMissing   = "skill.description-missing"
	CodeDescriptionTooLong   = "skill.description-too-long"
	CodeCompatibilityEmpty   = "skill.compatibility-empty"
	CodeCompatibilityTooLong = "skill.compatibility-too-long"

	// A field of the wrong YAML type: an error for name, description and compatibility, a
	// warning (field ignored) for the optional extras.
	CodeFieldType = "skill.field-type"

	// A `paths` entry was refused (warning; the entry is listed with its reason).
	CodePathsRefused = "skill.paths-refused"
)

module github.com/plugboard/plugboard

go 1.26.8

require (
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/net v0.62.0
)

require golang.org/x/text v0.43.0 // indirect

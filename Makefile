# Plugboard. `make run` starts the app, `make test` runs every test (installing what the
# tests need first), `make bench` measures. See README.md.

GO      ?= go
BIN     ?= ./plugboard
FUZZTIME ?= 20s

.PHONY: run build test deps vet unit fuzz bench clean

## run: build the CLI and show the catalog of this machine (the desktop app lands later)
run: build
	$(BIN) catalog

## build: the CLI with Go alone
build:
	$(GO) build -o $(BIN) .

## deps: everything the tests need (Go modules; later issues add system and npm packages)
deps:
	$(GO) mod download

## test: vet, then every Go test (fuzz seed corpora included), race detector on
test: deps vet unit

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -race ./...

## fuzz: run each fuzz target for $(FUZZTIME)
fuzz:
	@for t in $$(grep -rl --include='*_test.go' '^func Fuzz' backend); do \
	  pkg=./$$(dirname $$t); \
	  for f in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$t | sed 's/func //'); do \
	    echo "== $$pkg $$f"; $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	  done; \
	done

## bench: micro-benchmarks, then the cold catalog against the read-only floor
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./backend/...
	$(GO) run ./backend/benchhome/cmd/catalogbench

clean:
	rm -f $(BIN)

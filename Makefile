# Plugboard. `make run` starts the app, `make test` runs every test (installing what the
# tests need first), `make bench` measures. See README.md.

GO       ?= go
FUZZTIME ?= 20s
DESKTOP_TAGS := desktop,production,webkit2_41
BIN      := build/bin/plugboard
WINDOW   := build/bin/plugboard-window
STATIC   := build/bin/plugboard-static
PREFIX   ?= $(HOME)/.local
# What plugboard --version says: the nearest tag and the commits since (or the commit), and the date.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -w -s -X github.com/plugboard/plugboard/backend/version.Version=$(VERSION) \
            -X github.com/plugboard/plugboard/backend/version.Commit=$(shell git rev-parse HEAD 2>/dev/null) \
            -X github.com/plugboard/plugboard/backend/version.BuildDate=$(shell date -u +%Y-%m-%dT%H:%M:%SZ)

# The command line is linked statically (SQLite and the C library inside): linked
# dynamically, every start took about 1 ms more on this project's machine (the dynamic
# loader and its page faults; docs/performance.md). Go's own DNS resolver and user lookup keep
# glibc's NSS out; SQLite's extension loading (dlopen) is left out, and nothing uses it.
CLI_TAGS    := netgo,osusergo,sqlite_omit_load_extension
CLI_LDFLAGS := -linkmode external -extldflags -static

# Debian packages: GTK/WebKit headers for the window, Xvfb and friends for its test,
# Chromium for the page's end-to-end tests, a D-Bus session bus for the tray's, strace for
# the real-agent tests that prove an agent read nothing outside its projection.
# A CJK font (WenQuanYi Micro Hei, 5 MB) so the page in Chinese renders under Xvfb and in Chromium,
# and locales (localedef) for the window test in a Chinese locale.
APT_PKGS := libgtk-3-dev libwebkit2gtk-4.1-dev xvfb xauth xdotool imagemagick chromium fonts-dejavu-core dbus strace \
            appstream desktop-file-utils zsh fish fonts-wqy-microhei locales
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run build cli desktop app package test-package frontend deps deps-app deps-system deps-node deps-agents test vet unit \
        test-static test-desktop test-offline e2e screenshots fuzz bench install clean

## run: build the desktop app and start it (with no display it serves the page instead)
run: deps-app app
	./$(BIN)

## cli: plugboard, the command line with every command and the page embedded (serve),
## statically linked; it links no GTK or WebKit (those cost every start about 50 ms and
## 60 MB), and hands `plugboard` with no command to plugboard-window beside it
cli build: frontend
	$(GO) build -tags $(CLI_TAGS) -ldflags "$(LDFLAGS) $(CLI_LDFLAGS)" -o $(BIN) .

## desktop: the window program (GTK/WebKit 4.1), with the page embedded
desktop: frontend
	$(GO) build -tags $(DESKTOP_TAGS) -ldflags "$(LDFLAGS)" -o $(WINDOW) .

## app: the two programs: plugboard (make cli) and plugboard-window (make desktop)
app: desktop cli

## package: the .deb and a portable .tar.gz of the same files, in build/dist
package: app
	build/linux/package.sh $(BIN) $(WINDOW) $(VERSION) build/dist

## frontend: the TypeScript page into frontend/dist
frontend: deps-node
	cd frontend && npm run build

## deps: everything the build and the tests need, installed only when missing
deps: deps-app deps-agents

# deps-app: what building and running the app needs (make run)
deps-app: deps-system deps-node
	$(GO) mod download

deps-system:
	@missing=$$(for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

deps-node:
	@if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then \
	  cd frontend && npm ci --no-audit --no-fund; \
	fi

# The real agent clients the launch tests run offline (Claude Code, PI, pi-mcp-adapter;
# about 550 MB): build/agents, never shipped.
deps-agents:
	@if [ ! -d build/agents/node_modules ] || [ build/agents/package-lock.json -nt build/agents/node_modules/.package-lock.json ]; then \
	  cd build/agents && npm ci --no-audit --no-fund; \
	fi

## test: formatting and vet, every Go test (race detector), the window under Xvfb, the page in Chromium;
## after deps, with no network but loopback (build/linux/offline.sh: a test that reaches another host fails)
test: deps
	build/linux/offline.sh $(MAKE) test-offline

test-offline: vet unit test-static test-desktop test-package e2e

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './frontend/*'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags $(DESKTOP_TAGS) . ./app/desktop/
	$(GO) test -count=1 -run '^TestModelsUpToDate$$' ./app/tsgen/ # frontend/src/models.gen.ts is what go generate writes
	cd frontend && npm run typecheck

# The real clients' runs of every fixture (claude in two releases, codex, pi: about 400 s of
# CPU-bound client processes) are their own `go test` runs, one at a time after the rest:
# beside the other packages they came within reach of go test's 10-minute limit.
unit:
	$(GO) test -count=1 -race -skip 'RealClient$$' ./...
	$(GO) test -count=1 -run '^TestClaudeRealClient$$' ./backend/clients/
	$(GO) test -count=1 -run '^Test(Codex|PI)RealClient$$' ./backend/clients/

# test-static: the binary builds with CGO_ENABLED=0 (Go alone, no C compiler: a plugin
# author's CI), inspect and catalog work with it, and a command that needs SQLite (history)
# fails with exit 2 and the message that names the cause and the fix, touching nothing.
test-static:
	CGO_ENABLED=0 $(GO) build -o $(STATIC) .
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	fail() { echo "test-static: $$1"; cat "$$tmp/out"; exit 1; }; \
	./$(STATIC) inspect testdata/runtime/home/plugins/review >"$$tmp/out" 2>&1 || fail "inspect failed"; \
	grep -q '^testdata/runtime/home/plugins/review: valid portable plugin review 1.2.0; 2 skills (2 valid); 2 MCP servers' "$$tmp/out" || fail "inspect said"; \
	HOME="$$tmp" PLUGBOARD_HOME=testdata/runtime/home ./$(STATIC) catalog >"$$tmp/out" 2>&1 || fail "catalog failed"; \
	grep -q '^Plugins (4, 3 valid)' "$$tmp/out" || fail "catalog said"; \
	rc=0; HOME="$$tmp" PLUGBOARD_HOME="$$tmp/pb" ./$(STATIC) history >"$$tmp/out" 2>&1 || rc=$$?; \
	[ $$rc = 2 ] && ! grep -q 'panic\|goroutine ' "$$tmp/out" || fail "history exited $$rc"; \
	grep -q '^plugboard history: .*built without cgo (CGO_ENABLED=0).*go-sqlite3.*build plugboard with cgo (CGO_ENABLED=1' "$$tmp/out" || fail "history said"; \
	[ ! -e "$$tmp/pb" ] || fail "history made $$tmp/pb"; \
	echo "test-static: ok (CGO_ENABLED=0: inspect and catalog work, history says it needs cgo)"

# test-package: builds the package, installs it into this machine with dpkg, runs it (the
# command line, and the window from its desktop entry under Xvfb), removes it and checks
# nothing is left. It needs root (CI runs as root).
test-package: package
	PLUGBOARD_DEB=$$(ls -t $(CURDIR)/build/dist/plugboard_*.deb | head -1) $(GO) test -count=1 -tags $(DESKTOP_TAGS) -run TestDebPackage -v ./app/desktop/

test-desktop: app
	PLUGBOARD_DESKTOP_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -tags $(DESKTOP_TAGS) -skip '^TestDebPackage$$' -v ./app/desktop/

e2e: cli
	cd frontend && PLUGBOARD_BIN=$(CURDIR)/$(BIN) npm run e2e

## screenshots: the pictures the README shows (page in Chromium, window under Xvfb)
screenshots: app
	cd frontend && PLUGBOARD_BIN=$(CURDIR)/$(BIN) npm run screenshots
	PLUGBOARD_DESKTOP_BIN=$(CURDIR)/$(BIN) PLUGBOARD_SCREENSHOT=$(CURDIR)/docs/screenshots/desktop.png \
	  $(GO) test -count=1 -tags $(DESKTOP_TAGS) -run TestWindow ./app/desktop/

## fuzz: run each fuzz target for $(FUZZTIME)
fuzz:
	@for t in $$(grep -rl --include='*_test.go' '^func Fuzz' backend schemas); do \
	  pkg=./$$(dirname $$t); \
	  for f in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$t | sed 's/func //'); do \
	    echo "== $$pkg $$f"; $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	  done; \
	done

## bench: micro-benchmarks, start-up, the catalog cold and warm against the read-only floor, then the page
bench: cli
	$(GO) test -run '^$$' -bench . -benchmem ./schemas/ ./backend/... ./app/cli/
	$(GO) run ./backend/benchhome/cmd/startbench -tags $(CLI_TAGS) -ldflags "$(CLI_LDFLAGS)"
	$(GO) run ./backend/benchhome/cmd/catalogbench -tags $(CLI_TAGS) -ldflags "$(CLI_LDFLAGS)"
	cd frontend && PLUGBOARD_BIN=$(CURDIR)/$(BIN) node e2e/scale.bench.mjs

## install: the desktop app for this user, started by double-click (no terminal)
install: app
	install -Dm755 $(BIN) $(PREFIX)/bin/plugboard
	install -Dm755 $(WINDOW) $(PREFIX)/lib/plugboard/plugboard-window
	install -Dm644 build/appicon.png $(PREFIX)/share/icons/hicolor/512x512/apps/plugboard.png
	sed 's|^Exec=.*|Exec=$(PREFIX)/bin/plugboard|' build/linux/plugboard.desktop > build/bin/plugboard.desktop
	install -Dm644 build/bin/plugboard.desktop $(PREFIX)/share/applications/plugboard.desktop

clean:
	rm -rf plugboard build/bin build/dist

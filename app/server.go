package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
)

// maxBody caps a request body: arguments are a few paths and settings.
const maxBody = 1 << 20

const cookieName = "plugboard_token"

// Server serves the page and the Service over HTTP for `plugboard serve`.
type Server struct {
	page     *Page // what the page may call: the same surface as the window's bindings
	broker   *Broker
	token    string
	assets   fs.FS // the built page; may lack index.html
	port     string
	loopback bool
	encoded  encodedCatalog
	list     encodedCatalog
}

// encodedCatalog is the JSON of the last catalog document (or its list part) served. A published catalog is
// never changed (a scan or a reload publishes a new one), so the bytes serve every page
// that asks for the same scan: encoding 10,000 skills costs about 150 ms of CPU, which a
// page loading beside it on a 2-core machine waits for several times over.
type encodedCatalog struct {
	mu   sync.Mutex
	c    *catalog.Catalog
	data []byte
}

// bytes returns write's JSON of c, encoding it only when c is not the catalog last encoded.
func (e *encodedCatalog) bytes(c *catalog.Catalog, write func(io.Writer) error) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c == c {
		return e.data, nil
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return nil, err
	}
	e.c, e.data = c, b.Bytes()
	return e.data, nil
}

// NewServer makes a server for svc whose events come from broker. assets is the built
// page (frontend/dist).
func NewServer(svc *Service, broker *Broker, assets fs.FS) (*Server, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return &Server{page: NewPage(svc), broker: broker, token: hex.EncodeToString(b), assets: assets}, nil
}

// Token is the secret a client must present.
func (s *Server) Token() string { return s.token }

// Serve accepts connections on l until ctx ends. The first line written to out is the
// URL to open.
func (s *Server) Serve(ctx context.Context, l net.Listener, out io.Writer) error {
	host, port, _ := net.SplitHostPort(l.Addr().String())
	s.port = port
	ip := net.ParseIP(host)
	s.loopback = ip != nil && ip.IsLoopback()
	urlHost := host
	if ip != nil && ip.IsUnspecified() {
		urlHost = "127.0.0.1"
	}
	fmt.Fprintf(out, "http://%s/?token=%s\n", net.JoinHostPort(urlHost, port), s.token)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler returns the guarded handler (exported for tests).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.call)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, &Error{Code: CodeInvalid, Message: "call methods with POST /api/<Method>; events are GET /api/events"})
	})
	mux.HandleFunc("GET /", s.static)
	return s.guard(mux)
}

// guard refuses requests that are not from the page this server handed out: a Host that
// is not this server (DNS rebinding), a foreign Origin (cross-site requests), or no token.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		if !s.hostAllowed(r.Host) {
			deny(w, "the Host header does not name this server")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			deny(w, "cross-origin requests are refused")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			deny(w, "cross-site requests are refused")
			return
		}
		if !s.authorised(w, r) {
			deny(w, "missing or wrong token; open the URL plugboard serve printed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed accepts the bound port with an IP literal (a loopback one when the server
// listens on loopback), or with "localhost" when it listens on loopback. Any other name
// could be an attacker's DNS pointing here.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != s.port {
		return false
	}
	if host == "localhost" {
		return s.loopback
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	// On loopback only a loopback address reaches the server; off it, any of the
	// machine's addresses may (the one a client on the network uses).
	return ip != nil && (!s.loopback || ip.IsLoopback())
}

func (s *Server) authorised(w http.ResponseWriter, r *http.Request) bool {
	ok := func(t string) bool { return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1 }
	if ok(r.Header.Get("X-Plugboard-Token")) {
		return true
	}
	if c, err := r.Cookie(cookieName); err == nil && ok(c.Value) {
		return true
	}
	if ok(r.URL.Query().Get("token")) {
		if r.Method == http.MethodGet {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		return true
	}
	return false
}

func deny(w http.ResponseWriter, msg string) {
	writeError(w, http.StatusForbidden, &Error{Code: "forbidden", Message: msg})
}

func writeError(w http.ResponseWriter, status int, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(e)
}

// call dispatches POST /api/<Method> with a JSON array of arguments.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	var args jsonArgs
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	err := dec.Decode(&args)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF { // one array and nothing after it
			err = errors.New("data after the array")
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, &Error{Code: CodeInvalid, Message: fmt.Sprintf("the body is over %d KiB; arguments are a few paths and settings", maxBody>>10)})
		return
	case err != nil && !errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, &Error{Code: CodeInvalid, Message: "the body must be a JSON array of arguments: " + err.Error()})
		return
	}
	m, ok := pageMethods[r.PathValue("method")]
	if !ok {
		writeError(w, http.StatusNotFound, &Error{Code: CodeNotFound, Message: "no method " + r.PathValue("method")})
		return
	}
	result, err := m.call(s.page, args)
	if err != nil {
		writeMethodError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// megabytes for a large home: each document is encoded once per scan
	var data []byte
	switch r := result.(type) {
	case *catalog.Catalog:
		data, err = s.encoded.bytes(r, r.WriteJSON)
	case catalog.List:
		data, err = s.list.bytes(r.Catalog(), r.WriteJSON)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, &Error{Code: CodeIO, Message: err.Error()})
		return
	}
	if data != nil {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
		return
	}
	json.NewEncoder(w).Encode(result)
}

// pageMethods is what POST /api/<Method> may call: every method of Page, the page's
// surface, and no other. Each entry names the method and says how many arguments it
// takes; the arguments decode, in order, into its parameters' types (as the desktop
// window's bindings decode them), and arguments past those are ignored. Methods of the
// Service that are not on Page (SetActor, DraftDirty, Workspace, RequestOpen, Close) are "no method" here.
var pageMethods = map[string]pageMethod{
	"Catalog":           noArgs((*Page).Catalog),
	"ClientAnswers":     noArgs((*Page).ClientAnswers),
	"CatalogList":       noArgs((*Page).CatalogList),
	"Rescan":            noArgs((*Page).Rescan),
	"Settings":          noArgs((*Page).Settings),
	"SaveSettings":      twoArgs((*Page).SaveSettings),
	"OpenWorkspace":     oneArg((*Page).OpenWorkspace),
	"SetWorkspaceTrust": oneArg((*Page).SetWorkspaceTrust),
	"SetDraftDirty":     oneArgNoResult((*Page).SetDraftDirty),
	"Targets":           noArgs((*Page).Targets),
	"Assign":            fourArgs((*Page).Assign),
	"SetLaunchAs":       twoArgs((*Page).SetLaunchAs),
	"History":           oneArg((*Page).History),
	"Revert":            twoArgs((*Page).Revert),
	"NewAgent":          threeArgs((*Page).NewAgent),
	"CopyAgent":         twoArgs((*Page).CopyAgent),
	"RenameAgent":       twoArgs((*Page).RenameAgent),
	"RemoveAgent":       oneArg((*Page).RemoveAgent),
	"AddSlot":           twoArgs((*Page).AddSlot),
	"RemoveSlot":        oneArg((*Page).RemoveSlot),
	"Problems":          noArgs((*Page).Problems),
	"OpenFile":          twoArgs((*Page).OpenFile),
	"Launch":            threeArgs((*Page).Launch),
	"Backends":          noArgs((*Page).Backends),
	"Acknowledge":       twoArgs((*Page).Acknowledge),
	"WatchState":        noArgs((*Page).WatchState),
	"PauseWatching":     oneArg((*Page).PauseWatching),
	"SetLanguage":       oneArg((*Page).SetLanguage),
	"Links":             noArgs((*Page).Links),
	"Link":              fiveArgs((*Page).Link),
	"Unlink":            twoArgs((*Page).Unlink),
	"PickFolder":        noArgs((*Page).PickFolder),
	"Snapshots":         noArgs((*Page).Snapshots),
	"SnapshotDiff":      twoArgs((*Page).SnapshotDiff),
	"Activity":          oneArg((*Page).Activity),
	"ActivityCSV":       oneArg((*Page).ActivityCSV),
	"SaveActivityCSV":   oneArg((*Page).SaveActivityCSV),
	"Try":               fourArgs((*Page).Try),
	"Install":           fiveArgs((*Page).Install),
	"Uninstall":         twoArgs((*Page).Uninstall),
	"Installed":         noArgs((*Page).Installed),
	"Marketplaces":      noArgs((*Page).Marketplaces),
	"AddMarketplace":    twoArgs((*Page).AddMarketplace),
	"RemoveMarketplace": oneArg((*Page).RemoveMarketplace),
	"CheckUpdates":      oneArg((*Page).CheckUpdates),
	"Update":            oneArg((*Page).Update),
	"Rollback":          oneArg((*Page).Rollback),
	"Budget":            threeArgs((*Page).Budget),
	"CheckMCP":          twoArgs((*Page).CheckMCP),
	"Version":           noArgs((*Page).Version),
	"TakeOpen":          noArgs((*Page).TakeOpen),
	"Places":            noArgs((*Page).Places),
	"Autostart":         noArgs((*Page).Autostart),
	"SetAutostart":      oneArg((*Page).SetAutostart),
}

// A pageMethod is one entry of pageMethods.
type pageMethod struct {
	method any // the method expression, (*Page).<Method>; the test checks it is the named one
	call   func(p *Page, args jsonArgs) (any, error)
}

// jsonArgs are a call's arguments, each still JSON.
type jsonArgs []json.RawMessage

// decode decodes the first len(vs) arguments into vs, in order. An argument of the wrong
// JSON type is named by its place and the type it must be, not by a Go type.
func (a jsonArgs) decode(vs ...any) error {
	for i, v := range vs {
		if i >= len(a) {
			return fmt.Errorf("argument %d is missing (docs/api.md lists each method's arguments)", i+1)
		}
		if err := json.Unmarshal(a[i], v); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				where := ""
				if te.Field != "" {
					where = " at " + te.Field
				}
				return fmt.Errorf("argument %d%s must be %s, not a JSON %s (docs/api.md lists each method's arguments)", i+1, where, jsonKind(te.Type), te.Value)
			}
			return fmt.Errorf("argument %d: %v", i+1, err)
		}
	}
	return nil
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another JSON value"
}

func noArgs[R any](m func(*Page) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, _ jsonArgs) (any, error) { return m(p) }}
}

func oneArg[A, R any](m func(*Page, A) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		if err := args.decode(&a); err != nil {
			return nil, err
		}
		return m(p, a)
	}}
}

// oneArgNoResult is oneArg for a method that returns only an error: its result is null.
func oneArgNoResult[A any](m func(*Page, A) error) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		if err := args.decode(&a); err != nil {
			return nil, err
		}
		return nil, m(p, a)
	}}
}

func twoArgs[A, B, R any](m func(*Page, A, B) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		var b B
		if err := args.decode(&a, &b); err != nil {
			return nil, err
		}
		return m(p, a, b)
	}}
}

func threeArgs[A, B, C, R any](m func(*Page, A, B, C) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		var b B
		var c C
		if err := args.decode(&a, &b, &c); err != nil {
			return nil, err
		}
		return m(p, a, b, c)
	}}
}

func fourArgs[A, B, C, D, R any](m func(*Page, A, B, C, D) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		var b B
		var c C
		var d D
		if err := args.decode(&a, &b, &c, &d); err != nil {
			return nil, err
		}
		return m(p, a, b, c, d)
	}}
}

func fiveArgs[A, B, C, D, E, R any](m func(*Page, A, B, C, D, E) (R, error)) pageMethod {
	return pageMethod{m, func(p *Page, args jsonArgs) (any, error) {
		var a A
		var b B
		var c C
		var d D
		var e E
		if err := args.decode(&a, &b, &c, &d, &e); err != nil {
			return nil, err
		}
		return m(p, a, b, c, d, e)
	}}
}

// writeMethodError sends a method's error with the status its code calls for.
func writeMethodError(w http.ResponseWriter, err error) {
	var body any = &Error{Code: CodeInvalid, Message: err.Error()}
	code := CodeInvalid
	var e *Error
	if errors.As(err, &e) {
		body, code = e, e.Code
	}
	status := map[string]int{CodeStale: http.StatusConflict, CodeNotFound: http.StatusNotFound, CodeIO: http.StatusInternalServerError,
		CodeNeedAck: http.StatusConflict, CodeRefused: http.StatusUnprocessableEntity, CodeReadOnly: http.StatusForbidden}[code]
	if status == 0 {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// events streams emitted events as server-sent events until the client goes away.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, &Error{Code: CodeIO, Message: "streaming unsupported"})
		return
	}
	ch, cancel := s.broker.Subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	keepalive := time.NewTicker(25 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepalive.C:
			fmt.Fprint(w, ": keepalive\n\n")
			fl.Flush()
		case ev := <-ch:
			data, _ := json.Marshal(ev.Data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, data)
			fl.Flush()
		}
	}
}

// static serves the built page; without one, it says how to build it.
func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	if _, err := fs.Stat(s.assets, "index.html"); err != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "The page is not built into this binary. Build it with `make frontend` (npm ci && npm run build in frontend/), then rebuild plugboard. The API is at /api/<Method>.")
		return
	}
	http.FileServerFS(s.assets).ServeHTTP(w, r)
}

package visualize

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sync"
)

//go:embed assets/page.html assets/page.css assets/page.js
var assets embed.FS

// The page's parts are read and parsed when a page is first written, not
// as every process of the binary starts (a sync writes none).
var (
	pageCSS  = sync.OnceValue(func() string { return mustRead("assets/page.css") })
	pageJS   = sync.OnceValue(func() string { return mustRead("assets/page.js") })
	pageTmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("page.html").ParseFS(assets, "assets/page.html"))
	})
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// policy is the page's Content-Security-Policy: nothing is fetched, and
// only the page's own script and style run, named by their hashes, so even
// journal text that escaped its escaping could not execute.
var policy = sync.OnceValue(func() string {
	return fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
		hash(pageJS()), hash(pageCSS()))
})

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// page is what the template fills in.
type page struct {
	Run    string
	Policy string
	CSS    template.CSS
	JS     template.JS
	// Data goes into a <script type="application/json"> element, where
	// html/template encodes it as JSON with <, > and & escaped, so journal
	// text cannot close the element.
	Data *Data
}

// Render writes d as one self-contained HTML page to w: styles, script and
// data inline, nothing fetched. The same Data gives the same bytes. It
// returns the template's and the writer's errors.
func Render(w io.Writer, d *Data) error {
	return pageTmpl().Execute(w, page{Run: d.Run.ID, Policy: policy(), CSS: template.CSS(pageCSS()), JS: template.JS(pageJS()), Data: d})
}

// HTML renders d to a byte slice; see Render.
func HTML(d *Data) ([]byte, error) {
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

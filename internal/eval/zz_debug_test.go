package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/delta-memory/delta-memory/internal/locomo"
)

func TestZZLoss(t *testing.T) {
	cat, _ := strconv.Atoi(os.Getenv("ZZ_CAT"))
	if cat == 0 {
		t.Skip()
	}
	convs, err := locomo.Load(filepath.Join(devData, "locomo", "locomo-dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{Budget: 4000}
	dir, cleanup, _ := opts.workDir()
	defer cleanup()
	var out strings.Builder
	for ci := range convs {
		c := &convs[ci]
		d := LoCoMoDialogue(c)
		ws, err := newWorkspace(ctx, filepath.Join(dir, fmt.Sprint(ci)), opts.Engine, &d)
		if err != nil {
			t.Fatal(err)
		}
		bm, _ := newBM25Index(&d)
		lens := turnTokens(ws.tok, &d)
		index := d.turnIndex()
		rep := &LoCoMoReport{}
		for _, q := range c.Questions {
			if q.Category != cat {
				continue
			}
			ev := rep.evidence(q, index)
			if len(ev) == 0 {
				continue
			}
			eng, done, _ := ws.fresh(ctx)
			s, err := ask(ctx, eng, &d, q.Question, true)
			done()
			if err != nil {
				t.Fatal(err)
			}
			top, _ := bm.topTurns(ctx, ws.tok, &d, lens, q.Question, opts.Budget)
			dp, bp := d.present(s.text, ev), d.present(top.text, ev)
			if dp < bp {
				fmt.Fprintf(&out, "Q %s | A %s | delta %d bm25 %d of %d\n", q.Question, q.Answer, dp, bp, len(ev))
				for _, e := range ev {
					dr, br := -1, -1
					for k, x := range s.ranked {
						if x == e {
							dr = k
							break
						}
					}
					for k, x := range top.ranked {
						if x == e {
							br = k
							break
						}
					}
					fmt.Fprintf(&out, "   ev rank delta %d bm25 %d: %s\n", dr, br, d.Turns[e].Line)
				}
			}
		}
		bm.close()
	}
	os.WriteFile("/tmp/ev/loss.txt", []byte(out.String()), 0o644)
}

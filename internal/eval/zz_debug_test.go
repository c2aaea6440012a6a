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
	"github.com/delta-memory/delta-memory/recall"
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

func TestZZOrder(t *testing.T) {
	qs := os.Getenv("ZZ_QS")
	if qs == "" {
		t.Skip()
	}
	ci, _ := strconv.Atoi(os.Getenv("ZZ_C"))
	convs, _ := locomo.Load(filepath.Join(devData, "locomo", "locomo-dev.json"))
	ctx := context.Background()
	opts := Options{Budget: 4000}
	dir, cleanup, _ := opts.workDir()
	defer cleanup()
	c := &convs[ci]
	d := LoCoMoDialogue(c)
	ws, _ := newWorkspace(ctx, dir, opts.Engine, &d)
	bm, _ := newBM25Index(&d)
	ranked, _ := bm.rank(ctx, qs)
	eng, done, _ := ws.fresh(ctx)
	defer done()
	run, _ := eng.Journal.Run(ctx, d.ID)
	hits, err := eng.Retrieve(ctx, run, recall.Query{Keywords: []string{qs}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40 && i < len(ranked); i++ {
		fmt.Printf("bm25 %d %s\n", i, d.Turns[ranked[i]].Line[:min(90, len(d.Turns[ranked[i]].Line))])
	}
	for i, h := range hits {
		if i < 40 {
			fmt.Printf("delta %d %v %v %.3f %s\n", i, h.Iterations, h.Matched, h.Score, d.Turns[h.Matched[0]-1].Line[:min(80, len(d.Turns[h.Matched[0]-1].Line))])
		}
	}
}

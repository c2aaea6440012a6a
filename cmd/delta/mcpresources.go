package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/delta-memory/delta-memory"
	"github.com/delta-memory/delta-memory/journal"
)

// runsURI is where the server's resources live: runsURI + ID + "/" + part.
const runsURI = "memory://runs/"

// mcpResource is a resource template of the server: memory://runs/{id}/
// part, read by render.
type mcpResource struct {
	template *mcp.ResourceTemplate
	part     string
	render   func(ctx context.Context, eng *memory.Engine, run journal.Run) (string, error)
}

func (s *mcpServer) resources() []mcpResource {
	return []mcpResource{
		{
			template: &mcp.ResourceTemplate{
				Name: "context", Title: "Context window", MIMEType: "text/markdown", URITemplate: runsURI + "{id}/context",
				Description: "The run's context window as Markdown, under the server's budget (as delta memory context).",
			},
			part: "context",
			render: func(ctx context.Context, eng *memory.Engine, run journal.Run) (string, error) {
				cx, err := eng.Context(ctx, run, memory.ContextOptions{})
				if err != nil {
					return "", err
				}
				return cx.Markdown(), nil
			},
		},
		{
			template: &mcp.ResourceTemplate{
				Name: "status", Title: "Run status", MIMEType: "application/json", URITemplate: runsURI + "{id}/status",
				Description: "The run's summary as JSON, as the memory_status tool gives it.",
			},
			part: "status",
			render: func(ctx context.Context, eng *memory.Engine, run journal.Run) (string, error) {
				st, err := statusOf(ctx, eng, run)
				if err != nil {
					return "", err
				}
				b, err := json.MarshalIndent(st, "", "  ")
				return string(b), err
			},
		},
	}
}

// read answers resources/read for one template. A URI that names no run
// of the database is "resource not found"; other failures are errors
// that say what went wrong, with the CLI's hint.
func (s *mcpServer) read(r mcpResource) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		uri := req.Params.URI
		id, ok := runOfURI(uri, r.part)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		eng, run, err := s.open(ctx, id, 0)
		if errors.Is(err, journal.ErrRunNotFound) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, errors.New(strings.TrimPrefix(toolError(err), "Error: "))
		}
		defer eng.Close()
		text, err := r.render(ctx, eng, run)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", uri, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: r.template.MIMEType, Text: text}}}, nil
	}
}

// runOfURI returns the run id in memory://runs/{id}/part, unescaped.
func runOfURI(uri, part string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, runsURI)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/"+part)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	id, err := url.PathUnescape(id)
	return id, err == nil && id != ""
}

package window

import (
	"strings"

	"github.com/delta-memory/delta-memory/fold"
)

var partitionTitles = map[string]string{
	Static: "Static", LongTerm: "Long-term memory", ShortTerm: "Short-term memory",
	Working: "Working memory", Retrieved: "Retrieved memory", Dynamic: "Dynamic", State: "Run state as of the summaries",
}

func partitionHeading(name string) string { return "## " + partitionTitles[name] + "\n" }

// sectionHeading is the "### …" line of a Static, Retrieved or Dynamic
// section; blocks and iterations carry their own first line.
func sectionHeading(partition string, s *Section) string {
	if s.Bare {
		return ""
	}
	switch partition {
	case Static, Retrieved, Dynamic, State:
		if t, ok := staticTitles[s.Name]; ok {
			return "### " + t + "\n"
		}
		return "### " + s.Name + "\n"
	}
	return ""
}

// SelfNamed reports whether a recall's text names the iterations it holds
// at its start, as one line per iteration ("[iter 80] …") and a full
// rendering of several ("#### Iteration 80 (ok)") do: such a text needs no
// section heading to say what it is (Recalled.Bare).
func SelfNamed(text string) bool {
	return strings.HasPrefix(text, "[iter ") || strings.HasPrefix(text, "#### Iteration ")
}

// staticTitles are the Markdown headings of the Static sections, whose JSON
// names stay short ("system", "task").
var staticTitles = map[string]string{"system": "System prompt", "task": "Task", "subtask": "Subtask"}

// renderMarkdown writes the partitions in order, skipping empty ones, and
// returns where each section ends in the text. With inTimeline, the
// Retrieved sections are written among Working's iterations (timeline),
// under Working's heading even when Working shows no iteration: a heading
// that changed with Working would break the prefix.
func renderMarkdown(parts []Partition, inTimeline bool) (string, []span) {
	var b strings.Builder
	spans := []span{}
	var retrieved, short Partition
	for _, p := range parts {
		switch p.Name {
		case Retrieved:
			retrieved = p
		case ShortTerm:
			short = p
		}
	}
	for _, p := range parts {
		switch {
		case !inTimeline:
			spans = writePartition(&b, p, spans)
		case p.Name == Working:
			spans = writeTimeline(&b, p, retrieved, short, spans)
		case p.Name == ShortTerm:
			spans = writePartition(&b, laidOutBefore(p), spans)
		case p.Name != Retrieved:
			spans = writePartition(&b, p, spans)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n", spans
}

// writeTimeline writes Working with the recalls and the blocks made since
// the last chapter or cascade placed among its iterations (timeline).
func writeTimeline(b *strings.Builder, working, retrieved, short Partition, spans []span) []span {
	items := timeline(working, retrieved, short)
	if len(items) == 0 {
		return spans
	}
	b.WriteString(partitionHeading(Working))
	b.WriteByte('\n')
	for i := range items {
		it := &items[i]
		b.WriteString(sectionHeading(it.partition, &it.section))
		b.WriteString(it.section.Content)
		b.WriteString("\n\n")
		spans = append(spans, span{end: b.Len(), partition: it.partition, source: it.section.Source})
	}
	return spans
}

// writePartition writes p and appends the end of each of its sections to
// spans (nil spans are left nil).
func writePartition(b *strings.Builder, p Partition, spans []span) []span {
	if len(p.Sections) == 0 {
		return spans
	}
	b.WriteString(partitionHeading(p.Name))
	b.WriteByte('\n')
	for i := range p.Sections {
		b.WriteString(sectionHeading(p.Name, &p.Sections[i]))
		b.WriteString(p.Sections[i].Content)
		b.WriteString("\n\n")
		if spans != nil {
			spans = append(spans, span{end: b.Len(), partition: p.Name, source: p.Sections[i].Source})
		}
	}
	return spans
}

func partitionText(parts ...Partition) string {
	var b strings.Builder
	for _, p := range parts {
		writePartition(&b, p, nil)
	}
	return strings.TrimRight(b.String(), "\n")
}

// renderMessages lays the window out as OpenAI chat messages: the system
// prompt as the system message, folded memory as a second system message,
// the task as the first user message, Working iterations as native
// assistant and tool messages, and Retrieved plus Dynamic (the goal last)
// as a closing user message. With inTimeline, each recall, and each block
// made since the last chapter or cascade, is a user message of its own
// among Working's iterations instead (timeline).
func renderMessages(parts []Partition, inTimeline bool) []fold.Message {
	byName := map[string]Partition{}
	for _, p := range parts {
		byName[p.Name] = p
	}
	var msgs []fold.Message
	static := byName[Static]
	for _, s := range static.Sections {
		if s.Name == "system" {
			msgs = append(msgs, fold.Message{Role: "system", Content: fold.StrPtr(s.Content)})
		}
	}
	short := byName[ShortTerm]
	if inTimeline {
		short = laidOutBefore(short)
	}
	if mem := partitionText(byName[LongTerm], short, byName[State]); mem != "" {
		msgs = append(msgs, fold.Message{Role: "system", Content: fold.StrPtr(mem)})
	}
	for _, s := range static.Sections {
		if s.Name == "task" {
			msgs = append(msgs, fold.Message{Role: "user", Content: fold.StrPtr(s.Content)})
		}
	}
	tail := []Partition{byName[Retrieved], byName[Dynamic]}
	if !inTimeline {
		for _, s := range byName[Working].Sections {
			msgs = append(msgs, s.Messages...)
		}
	} else {
		for _, it := range timeline(byName[Working], byName[Retrieved], byName[ShortTerm]) {
			if it.partition == Working {
				msgs = append(msgs, it.section.Messages...)
				continue
			}
			text := sectionHeading(it.partition, &it.section) + it.section.Content
			msgs = append(msgs, fold.Message{Role: "user", Content: fold.StrPtr(text)})
		}
		tail = tail[1:]
	}
	if tail := partitionText(tail...); tail != "" {
		msgs = append(msgs, fold.Message{Role: "user", Content: fold.StrPtr(tail)})
	}
	return msgs
}

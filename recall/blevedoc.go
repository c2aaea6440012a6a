package recall

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	bdoc "github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// docMaker turns documents into bleve's documents by the index's mapping,
// without bleve's mapper: that walks each document's map by reflection,
// and then sizes every field, a tenth of indexing's own work. The fields
// come out as the mapper makes them (TestDocMakerMatchesMapping).
type docMaker struct {
	fields map[string]fieldMaker
}

// fieldMaker is what the mapping says of one field.
type fieldMaker struct {
	options  bindex.FieldIndexingOptions
	number   bool
	analyzer analysis.Analyzer
}

// newDocMaker reads each field's options and analyzer from m, whose
// default document mapping holds one field mapping per property, as
// newMapping makes it.
func newDocMaker(m mapping.IndexMapping) (*docMaker, error) {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok || im.DefaultMapping == nil {
		return nil, fmt.Errorf("recall index mapping is a %T, not delta-memory's", m)
	}
	dm := &docMaker{fields: map[string]fieldMaker{}}
	for name, sub := range im.DefaultMapping.Properties {
		if !sub.Enabled || len(sub.Fields) == 0 {
			continue
		}
		if len(sub.Fields) != 1 {
			return nil, fmt.Errorf("recall index field %s has %d mappings", name, len(sub.Fields))
		}
		fm := sub.Fields[0]
		f := fieldMaker{options: fm.Options()}
		switch fm.Type {
		case "number":
			f.number = true
		case "text":
			if f.analyzer = im.AnalyzerNamed(fm.Analyzer); f.analyzer == nil {
				return nil, fmt.Errorf("recall index field %s: no analyzer %q", name, fm.Analyzer)
			}
		default:
			return nil, fmt.Errorf("recall index field %s is of type %s", name, fm.Type)
		}
		dm.fields[name] = f
	}
	return dm, nil
}

// make builds d's bleve document.
func (dm *docMaker) make(d *document) (*bdoc.Document, error) {
	doc := bdoc.NewDocument(d.id)
	for name, v := range d.fields() {
		f, ok := dm.fields[name]
		if !ok {
			return nil, fmt.Errorf("index %s: field %s is not in the mapping", d.id, name)
		}
		switch v := v.(type) {
		case float64:
			if !f.number {
				return nil, fmt.Errorf("index %s: field %s is not a number", d.id, name)
			}
			doc.AddField(bdoc.NewNumericFieldWithIndexingOptions(name, nil, v, f.options))
		case string:
			if f.analyzer == nil {
				return nil, fmt.Errorf("index %s: field %s is not text", d.id, name)
			}
			doc.AddField(bdoc.NewTextFieldCustom(name, nil, []byte(v), f.options, f.analyzer))
		default:
			return nil, fmt.Errorf("index %s: field %s holds a %T", d.id, name, v)
		}
	}
	return doc, nil
}

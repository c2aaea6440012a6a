package scoring

import (
	"slices"
	"testing"
)

func TestEffects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		want    []EntityChange
	}{
		{"mv ./data/cache.json data/cache.json.bak", []EntityChange{
			{Entity: "data/cache.json", Effect: EffectMovedTo, Other: "data/cache.json.bak"},
			{Entity: "data/cache.json.bak", Effect: EffectMovedFrom, Other: "data/cache.json"}}},
		{"cp a.cfg b.cfg", []EntityChange{{Entity: "b.cfg", Effect: EffectCopiedFrom, Other: "a.cfg"}}},
		{"ln -s ../v2 releases/current", []EntityChange{{Entity: "releases/current", Effect: EffectLinkedTo, Other: "../v2"}}},
		{"chmod 600 keys//id.pem", []EntityChange{{Entity: "keys/id.pem", Effect: EffectMode, Other: "600"}}},
		{"chown app: /srv/app/", []EntityChange{{Entity: "/srv/app", Effect: EffectOwner, Other: "app:"}}},
		{"rm -rf build/ && mkdir build && echo x > build/x", []EntityChange{
			{Entity: "build", Effect: EffectDeleted}, {Entity: "build", Effect: EffectCreated}, {Entity: "build/x", Effect: EffectModified}}},
		{"pip install requests", []EntityChange{{Entity: "requests", Effect: EffectInstalled}}},
	}
	for _, tt := range tests {
		var got []EntityChange
		for _, c := range StateChanges("bash", nil, tt.command) {
			got = append(got, c.Effects()...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("effects of %q\n got %+v\nwant %+v", tt.command, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    EntityChange
		want string
	}{
		{EntityChange{Entity: "a", Effect: EffectMovedTo, Other: "a.bak"}, "moved to a.bak"},
		{EntityChange{Entity: "a.bak", Effect: EffectMovedFrom, Other: "a"}, "moved from a"},
		{EntityChange{Entity: "b", Effect: EffectCopiedFrom, Other: "a"}, "copied from a"},
		{EntityChange{Entity: "cur", Effect: EffectLinkedTo, Other: "v2"}, "linked to v2"},
		{EntityChange{Entity: "x.sh", Effect: EffectMode, Other: "000"}, "mode set to 000"},
		{EntityChange{Entity: "x", Effect: EffectOwner, Other: "root"}, "owner set to root"},
		{EntityChange{Entity: "x", Effect: EffectDeleted}, "deleted"},
	}
	for _, tt := range tests {
		if got := tt.c.Describe(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestEntityKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"./data/a.json": "data/a.json", "data//a.json": "data/a.json", "build/": "build", " a ": "a",
		".": "", "": "", "/": "/", "../x": "../x", "https://h/a//b": "https://h/a//b", "Src/A.py": "Src/A.py",
	} {
		if got := EntityKey(in); got != want {
			t.Errorf("EntityKey(%q) = %q, want %q", in, got, want)
		}
	}
}

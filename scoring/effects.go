package scoring

import (
	"path"
	"strings"
)

// Effect is what a state change did to one entity, seen from that
// entity: a move is "moved-to" for its source and "moved-from" for its
// destination.
type Effect string

// The effects of state changes on one entity. Other, in EntityChange,
// says where to or from, or what the mode or owner became.
const (
	// EffectCreated: the entity was created.
	EffectCreated Effect = "created"
	// EffectModified: the entity was written or edited.
	EffectModified Effect = "modified"
	// EffectDeleted: the entity was removed.
	EffectDeleted Effect = "deleted"
	// EffectMovedTo: the entity was moved away, to Other.
	EffectMovedTo Effect = "moved-to"
	// EffectMovedFrom: the entity was made by moving Other here.
	EffectMovedFrom Effect = "moved-from"
	// EffectCopiedFrom: the entity was made as a copy of Other.
	EffectCopiedFrom Effect = "copied-from"
	// EffectLinkedTo: the entity was made a link to Other.
	EffectLinkedTo Effect = "linked-to"
	// EffectMode: the entity's permissions were set to Other.
	EffectMode Effect = "chmod"
	// EffectOwner: the entity's owner or group was set to Other.
	EffectOwner Effect = "chown"
	// EffectInstalled: the entity, a package, was installed.
	EffectInstalled Effect = "installed"
)

// Makes reports whether the effect brings the entity into being: created,
// or moved, copied or linked here.
func (e Effect) Makes() bool {
	switch e {
	case EffectCreated, EffectMovedFrom, EffectCopiedFrom, EffectLinkedTo:
		return true
	}
	return false
}

// Removes reports whether the effect leaves nothing at the entity's path:
// deleted, or moved away.
func (e Effect) Removes() bool {
	return e == EffectDeleted || e == EffectMovedTo
}

// EntityChange is one entity's side of a state change.
type EntityChange struct {
	// Entity is the path or package, as EntityKey spells it.
	Entity string
	Effect Effect
	// Other is the other end of a move, copy or link (as EntityKey
	// spells it), or the mode or owner set; empty otherwise.
	Other string
}

// describedAs words the effects that name their Other: "moved to X".
var describedAs = map[Effect]string{
	EffectMovedTo:    "moved to ",
	EffectMovedFrom:  "moved from ",
	EffectCopiedFrom: "copied from ",
	EffectLinkedTo:   "linked to ",
	EffectMode:       "mode set to ",
	EffectOwner:      "owner set to ",
}

// Describe says what became of the entity, for people: "created",
// "moved to data/a.json.bak", "copied from a.cfg", "mode set to 000".
func (c EntityChange) Describe() string {
	if w, ok := describedAs[c.Effect]; ok {
		return w + c.Other
	}
	return string(c.Effect)
}

// Effects returns each changed entity's side of the change, in the order
// of Changed: a move gives the source's "moved-to" and the destination's
// "moved-from"; a copy or link, the side of what it made; the rest, one
// side. Changes with no path give none.
func (c StateChange) Effects() []EntityChange {
	p, to := EntityKey(c.Path), EntityKey(c.To)
	var out []EntityChange
	add := func(entity string, e Effect, other string) {
		if entity != "" {
			out = append(out, EntityChange{Entity: entity, Effect: e, Other: other})
		}
	}
	switch c.Op {
	case ChangeMoved:
		add(p, EffectMovedTo, to)
		add(to, EffectMovedFrom, p)
	case ChangeCopied:
		add(to, EffectCopiedFrom, p)
	case ChangeLinked:
		add(to, EffectLinkedTo, c.Path) // as written: a link's target is relative to the link
	case ChangeMode:
		add(p, EffectMode, c.Value)
	case ChangeOwner:
		add(p, EffectOwner, c.Value)
	case ChangeCreated:
		add(p, EffectCreated, "")
	case ChangeModified:
		add(p, EffectModified, "")
	case ChangeDeleted:
		add(p, EffectDeleted, "")
	case ChangeInstalled:
		add(p, EffectInstalled, "")
	}
	return out
}

// EntityKey spells a path the way entity histories key it, so that
// "./data/a.json", "data//a.json" and "data/a.json" are one entity:
// cleaned lexically (path.Clean), without a trailing slash. URLs, and
// names that are not paths, come back trimmed of white space; "" stays
// "". Case is kept: paths are case-sensitive.
func EntityKey(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || strings.Contains(p, "://") {
		return p
	}
	c := path.Clean(p)
	if c == "." {
		return ""
	}
	return c
}

package cache

// Op says what a Delta reports.
type Op uint8

// A reflector reports a (re)list as OpListStart, an OpListItem per object
// and OpListEnd, and a watch as OpUpsert and OpDelete. Applying the list
// items as they arrive, and dropping at OpListEnd whatever the list did
// not mention, is what lets a relist run without a second copy of the
// cache in memory.
const (
	// OpListStart begins a listing; Object is the zero value.
	OpListStart Op = iota + 1
	// OpListItem is one object of the listing.
	OpListItem
	// OpListEnd completes the listing: objects not reported since
	// OpListStart no longer exist. Object is the zero value.
	OpListEnd
	// OpUpsert is an object added or modified, from a watch.
	OpUpsert
	// OpDelete is an object deleted, with its last state, from a watch.
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpListStart:
		return "ListStart"
	case OpListItem:
		return "ListItem"
	case OpListEnd:
		return "ListEnd"
	case OpUpsert:
		return "Upsert"
	case OpDelete:
		return "Delete"
	}
	return "Unknown"
}

// Delta is one thing a Reflector learned.
type Delta[T Object] struct {
	Op     Op
	Object T
}

package bolt

import (
	"bytes"
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// List implements storage.Interface. At the current revision it walks the
// key bucket; at an older one it walks the hist bucket, two seeks per key.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	rev, after, err := opts.Position(prefix)
	if err != nil {
		return storage.ListResult{}, err
	}
	var res storage.ListResult
	err = s.view(func(tx *bbolt.Tx) error {
		current, compacted := revisions(tx)
		if rev == 0 {
			rev = current
		}
		if err := checkRevision(rev, current, compacted); err != nil {
			return err
		}
		l := lister{tx: tx, prefix: []byte(prefix), limit: opts.Limit, res: &res}
		res.Revision = rev
		if rev == current {
			return l.current(after)
		}
		return l.at(rev, after)
	})
	if err != nil {
		return storage.ListResult{}, err
	}
	if res.Continue != "" {
		res.Continue = storage.EncodeContinue(prefix, res.Continue, rev)
	}
	return res, nil
}

// lister collects one page. When the page is full and another item
// exists, it leaves the last returned key in res.Continue for List to
// turn into a token.
type lister struct {
	tx     *bbolt.Tx
	prefix []byte
	limit  int64
	res    *storage.ListResult
}

// add appends an item, or reports false when the page is already full.
func (l *lister) add(key []byte, rec record, rev int64) bool {
	if l.limit > 0 && int64(len(l.res.Items)) == l.limit {
		l.res.Continue = l.res.Items[len(l.res.Items)-1].Key
		return false
	}
	l.res.Items = append(l.res.Items, storage.KeyValue{Key: string(key), Value: rec.value, Revision: rev})
	return true
}

func (l *lister) start(after string) []byte {
	if after == "" {
		return l.prefix
	}
	return append([]byte(after), 0)
}

func (l *lister) current(after string) error {
	c := l.tx.Bucket(bucketKey).Cursor()
	for k, v := c.Seek(l.start(after)); k != nil && bytes.HasPrefix(k, l.prefix); k, v = c.Next() {
		rev := bytesRev(v)
		rec, err := readRecord(l.tx, rev)
		if err != nil {
			return err
		}
		if !l.add(k, rec, rev) {
			return nil
		}
	}
	return nil
}

func (l *lister) at(rev int64, after string) error {
	c := l.tx.Bucket(bucketHist).Cursor()
	start := l.prefix
	if after != "" {
		start = nextKeyStart(after)
	}
	for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, l.prefix); k, _ = c.Seek(start) {
		key, _, err := parseVersionKey(k)
		if err != nil {
			return err
		}
		start = nextKeyStart(key)
		// The last version at or below rev is just before the first one
		// above it.
		var vk, flag []byte
		if k, _ := c.Seek(versionKey(key, rev+1)); k == nil {
			vk, flag = c.Last()
		} else {
			vk, flag = c.Prev()
		}
		if vk == nil {
			continue
		}
		vkey, vrev, err := parseVersionKey(vk)
		if err != nil {
			return err
		}
		if vkey != key || len(flag) != 1 || flag[0] != histValue {
			continue
		}
		rec, err := readRecord(l.tx, vrev)
		if err != nil {
			return err
		}
		if !l.add([]byte(key), rec, vrev) {
			return nil
		}
	}
	return nil
}

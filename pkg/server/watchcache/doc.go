// Package watchcache keeps every served resource's current objects and
// recent changes in memory, so LIST and WATCH are answered without
// touching storage.
//
// In the data path it sits beside the REST handlers, fed by one storage
// watch on the key root: the Store applies each storage event, in
// revision order, to the Cache of the resource the key belongs to. Since
// every write lands under the key root, the Store's revision is the
// storage revision, and a consistent read waits for the Store to reach
// the storage's current revision, then reads memory.
//
// Objects are decoded once per change. An Event carries memo slots so the
// bytes a watch stream writes for it are built once and shared by every
// watcher. A watcher whose buffer fills is ended rather than buffered
// without bound; its client resumes from its last resourceVersion.
package watchcache

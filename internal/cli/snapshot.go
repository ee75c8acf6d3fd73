package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// defaultBump is how far a restore moves the revision on: the figure
// Kubernetes' etcd restore guide gives for etcdutl's --bump-revision,
// more writes than a store takes between a snapshot and its restore.
const defaultBump = 1_000_000_000

// runSnapshot saves the bolt store to a file, through a running server
// or from a stopped one's data directory, or restores such a file into
// a data directory.
func runSnapshot(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "save":
			return runSnapshotSave(ctx, args[1:], stdout, stderr)
		case "restore":
			return runSnapshotRestore(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, "Usage: setpoint snapshot save|restore [flags] FILE\n\n"+
		"save: copy the embedded store, consistent at one revision, to FILE (setpoint snapshot save -h)\n"+
		"restore: make a data directory's store from FILE (setpoint snapshot restore -h)")
	return 2
}

func runSnapshotSave(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("snapshot save", stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the running server to copy the store from, as its admin (default ./setpoint-data/kubeconfig)")
	dataDir := fs.String("data-dir", "", "copy the store of this data directory instead, while no server has it open")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: setpoint snapshot save [--kubeconfig PATH | --data-dir DIR] FILE\n\n"+
			"Copies the embedded bolt store, consistent at one revision, to FILE. A running\n"+
			"server keeps serving while it does.\n\nFlags:")
		fs.PrintDefaults()
	}
	file, ok := parseOneFile(fs, args)
	if !ok {
		return 2
	}
	if *kubeconfig != "" && *dataDir != "" {
		fmt.Fprintln(stderr, "setpoint snapshot save: give --kubeconfig or --data-dir, not both")
		return 2
	}
	part := file + ".part"
	var rev int64
	var err error
	if *dataDir != "" {
		rev, err = saveFromDir(filepath.Join(*dataDir, server.DBFile), part)
	} else {
		if *kubeconfig == "" {
			*kubeconfig = "./setpoint-data/kubeconfig"
		}
		rev, err = saveFromServer(ctx, *kubeconfig, part)
	}
	if err == nil {
		err = finishSave(part, file, rev)
	}
	if err != nil {
		os.Remove(part)
		fmt.Fprintf(stderr, "setpoint snapshot save: %v\n", err)
		return 1
	}
	fi, _ := os.Stat(file)
	fmt.Fprintf(stdout, "Saved the store at revision %d to %s (%d bytes)\n", rev, file, fi.Size())
	return 0
}

// parseOneFile parses flags that may come before or after one FILE.
func parseOneFile(fs *flag.FlagSet, args []string) (string, bool) {
	pos, ok := parseInterspersed(fs, args)
	if !ok {
		return "", false
	}
	if len(pos) != 1 || pos[0] == "" {
		fs.Usage()
		return "", false
	}
	return pos[0], true
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, and returns those.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, bool) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			return pos, true
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
}

// saveFromDir copies a store no server has open.
func saveFromDir(db, to string) (int64, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	s, err := bolt.Open(db, bolt.Options{QuotaBytes: -1})
	if errors.Is(err, bolt.ErrLocked) {
		return 0, fmt.Errorf("%w: a server has it open; save through the server with --kubeconfig", err)
	}
	if err != nil {
		return 0, err
	}
	defer s.Close()
	sn, err := s.Snapshot()
	if err != nil {
		return 0, err
	}
	defer sn.Close()
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	_, err = sn.WriteTo(f)
	return sn.Revision(), errors.Join(err, f.Close())
}

// saveFromServer fetches a snapshot from a running server.
func saveFromServer(ctx context.Context, kubeconfig, to string) (int64, error) {
	cfg, err := client.Config(kubeconfig, "")
	if err != nil {
		return 0, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+apiserver.SnapshotPath, nil)
	if err != nil {
		return 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, statusError(resp)
	}
	rev, err := strconv.ParseInt(resp.Header.Get(apiserver.RevisionHeader), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the server sent no revision: %w", err)
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	// The body has a Content-Length, so a copy cut short fails here.
	n, err := io.Copy(f, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("got %d of %d bytes", n, resp.ContentLength)
	}
	return rev, errors.Join(err, f.Close())
}

// statusError reads the Status a server answered with.
func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		return fmt.Errorf("the server answered %d: %s", resp.StatusCode, st.Message)
	}
	return fmt.Errorf("the server answered %s", resp.Status)
}

// finishSave makes the copy durable, checks every page of it, and only
// then gives it its name, so that FILE is always a whole snapshot.
func finishSave(part, file string, rev int64) error {
	f, err := os.OpenFile(part, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	got, err := bolt.Verify(part)
	if err != nil {
		return err
	}
	if got != rev {
		return fmt.Errorf("the copy is at revision %d, not the %d the server announced", got, rev)
	}
	return os.Rename(part, file)
}

func runSnapshotRestore(args []string, stdout, stderr io.Writer) int {
	fs := flags("snapshot restore", stderr)
	dataDir := fs.String("data-dir", "./setpoint-data", "data directory to restore the store into; it must hold no store")
	bump := fs.Int64("bump-revision", defaultBump, "added to the snapshot's revision, which is marked compacted, so that clients that saw later revisions get 410 Gone and list again; 0 keeps the revision")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: setpoint snapshot restore [--data-dir DIR] [--bump-revision N] FILE\n\n"+
			"Makes DIR's store from a snapshot. Stop every server first; start one on DIR\n"+
			"afterwards. DIR's credentials, if any, are kept.\n\nFlags:")
		fs.PrintDefaults()
	}
	file, ok := parseOneFile(fs, args)
	if !ok {
		return 2
	}
	if *bump < 0 {
		fmt.Fprintln(stderr, "setpoint snapshot restore: --bump-revision must be 0 or more")
		return 2
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		fmt.Fprintf(stderr, "setpoint snapshot restore: %v\n", err)
		return 1
	}
	db := filepath.Join(*dataDir, server.DBFile)
	rev, err := bolt.Restore(file, db, bolt.RestoreOptions{BumpRevision: *bump})
	if err != nil {
		fmt.Fprintf(stderr, "setpoint snapshot restore: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Restored %s into %s at revision %d\n", file, db, rev)
	return 0
}

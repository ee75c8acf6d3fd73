package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/migration"
)

// runMigrate moves a stopped server's bolt store into etcd.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("migrate", stderr)
	from := fs.String("from", "", "the store to read: bolt:DIR, a data directory no server has open")
	to := fs.String("to", "", "the store to write: etcd:URL[,URL...], which must hold no objects under --etcd-prefix")
	etcdCfg := etcdFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: setpoint migrate --from bolt:DIR --to etcd:URL[,URL...] [flags]\n\n"+
			"Copies every object of a stopped server's embedded store into etcd. The\n"+
			"objects get resourceVersions past every one the old store handed out,\n"+
			"and etcd is compacted there, so clients that watched the old server list\n"+
			"again. Then start the servers with --storage etcd (and --pki-dir DIR/pki\n"+
			"to keep the credentials).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir, okFrom := strings.CutPrefix(*from, "bolt:")
	urls, okTo := strings.CutPrefix(*to, "etcd:")
	etcdCfg.Servers = splitURLs(urls)
	if fs.NArg() > 0 || !okFrom || dir == "" || !okTo || len(etcdCfg.Servers) == 0 {
		fs.Usage()
		return 2
	}
	db := filepath.Join(dir, server.DBFile)
	if _, err := os.Stat(db); err != nil {
		fmt.Fprintf(stderr, "setpoint migrate: %v\n", err)
		return 1
	}
	src, err := bolt.Open(db, bolt.Options{QuotaBytes: -1})
	if errors.Is(err, bolt.ErrLocked) {
		fmt.Fprintf(stderr, "setpoint migrate: %v: stop the server first, or its later writes would be lost\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "setpoint migrate: %v\n", err)
		return 1
	}
	defer src.Close()
	dst, err := server.OpenEtcd(*etcdCfg)
	if err != nil {
		fmt.Fprintf(stderr, "setpoint migrate: %v\n", err)
		return 1
	}
	defer dst.Close()
	start := time.Now()
	last := start
	res, err := migration.Copy(ctx, src, dst, migration.Options{Progress: func(n int) {
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			fmt.Fprintf(stdout, "copied %d objects\n", n)
		}
	}})
	if err != nil {
		fmt.Fprintf(stderr, "setpoint migrate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Migrated %d objects from %s (revision %d) to etcd in %s; etcd is at revision %d, compacted there\n",
		res.Keys, db, res.SourceRevision, time.Since(start).Round(time.Millisecond), res.Revision)
	return 0
}

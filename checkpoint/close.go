package checkpoint

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/catalog-enrichment/enrichment/internal/sqliteva"
	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Connector opens dsn's connections with SQLite's checkpoint at close turned
// off (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE). Otherwise the last connection of a
// process to close copies the whole log into the database before the
// process can end: after an import of 100k products, a second of the
// command's five, after one of 1M, 22 s. The copy is left to the server's
// checkpointer, which runs beside the writers (Register syncs the log a
// process leaves).
func Connector(dsn string) (driver.Connector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite connector: %w", err)
	}
	return noCloseCheckpoint{base}, nil
}

type noCloseCheckpoint struct{ driver.Connector }

func (c noCloseCheckpoint) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	// note: a connection that keeps the close checkpoint loses nothing (its
	// close copies the log, as before); TestCloseLeavesTheLog fails on a
	// driver upgrade that leaves skipCheckpointOnClose without its handle
	_ = skipCheckpointOnClose(conn)
	return conn, nil
}

// errNoHandle says the driver's connection does not show its sqlite3
// handle where this version of modernc.org/sqlite keeps it.
var errNoHandle = errors.New("checkpoint: the sqlite driver's connection has no handle field")

// skipCheckpointOnClose sets SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on conn.
// note: the driver calls sqlite3_db_config only for its own options and
// does not export the connection's sqlite3 handle: it is read from its
// field, and the call made as the driver makes it (conn.go, dbConfigBool),
// with a thread context of its own.
func skipCheckpointOnClose(conn any) error {
	v := reflect.ValueOf(conn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errNoHandle
	}
	field := v.Elem().FieldByName("db")
	if !field.IsValid() || field.Kind() != reflect.Uintptr || field.Uint() == 0 {
		return errNoHandle
	}
	tls := libc.NewTLS()
	defer tls.Close()
	va, free, err := sqliteva.List(tls, int32(1), uintptr(0)) // on, and a NULL int* for the setting read back
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer free()
	if rc := sqlite3.Xsqlite3_db_config(tls, uintptr(field.Uint()), sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, va); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("checkpoint: sqlite3_db_config(NO_CKPT_ON_CLOSE): code %d", rc)
	}
	return nil
}

// syncLog makes the log at walPath durable: with synchronous NORMAL a
// commit is written to the log but synced only by a checkpoint, which a
// closing connection no longer runs.
func syncLog(walPath string) error {
	f, err := os.Open(walPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", walPath, err)
	}
	syncErr := f.Sync()
	if err := f.Close(); syncErr == nil {
		syncErr = err
	}
	if syncErr != nil {
		return fmt.Errorf("sync %s: %w", walPath, syncErr)
	}
	// note: the log may be new since the folder was last synced
	dir, err := os.Open(filepath.Dir(walPath))
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Dir(walPath), err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(walPath), err)
	}
	return nil
}

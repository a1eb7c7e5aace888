// Command ferretdb starts an embedded FerretDB v1 server so SPS can run on a real
// MongoDB wire-protocol server where MongoDB itself cannot be installed.
// Upstream's own cmd needs a build-time version file; the embeddable package does not.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// FerretDB's own pool size when the PostgreSQL URL does not set pool_max_conns.
const defaultPoolMaxConns = 50

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "backend: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/ferretdb/", "SQLite directory URI (sqlite handler)")
	postgresURL := flag.String("postgresql-url", "postgres://127.0.0.1:5432/ferretdb", "PostgreSQL URL (postgresql handler)")
	maxCommands := flag.Int("max-commands", 0,
		"commands in flight at once on the postgresql handler (0: under half of the URL's pool_max_conns)")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail(2, fmt.Errorf("bad -log-level %q: %w", *logLevel, err))
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	config := &ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Logger:        logger,
		Handler:       *handler,
		SQLiteURL:     *sqliteURL,
		PostgreSQLURL: *postgresURL,
	}
	var proxy *gatedProxy
	if *handler == "postgresql" {
		limit := *maxCommands
		if limit <= 0 {
			pool, err := poolMaxConns(*postgresURL)
			if err != nil {
				fail(2, err)
			}
			limit = max(1, (pool-1)/2)
		}
		socketDir, err := os.MkdirTemp("", "sps-ferretdb-")
		if err != nil {
			fail(1, err)
		}
		defer os.RemoveAll(socketDir)
		socket := filepath.Join(socketDir, "ferretdb.sock")
		config.Listener = ferretdb.ListenerConfig{Unix: socket}
		proxy = newGatedProxy(func() (net.Conn, error) { return net.Dial("unix", socket) }, limit, logger)
	}

	f, err := ferretdb.New(config)
	if err != nil {
		fail(1, err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ran := make(chan error, 1)
	go func() { ran <- f.Run(ctx) }()
	if proxy != nil {
		// Clients are let in once FerretDB answers behind the gate.
		if err := waitForSocket(ctx, proxy.dial, ran); err != nil {
			fail(1, err)
		}
		listener, err := net.Listen("tcp", *listen)
		if err != nil {
			fail(1, err)
		}
		go func() {
			<-ctx.Done()
			listener.Close()
		}()
		go func() {
			if err := proxy.serve(listener); err != nil {
				logger.Error("gate: accepting connections failed", slog.String("error", err.Error()))
				stop()
			}
		}()
	}
	fmt.Println("ferretdb starting on", *listen)

	select {
	case err := <-ran:
		if err != nil && ctx.Err() == nil {
			fail(1, err)
		}
	case <-ctx.Done():
		// FerretDB waits for its clients' commands; a stop must not wait on a stuck one for ever.
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			logger.Warn("stopping without waiting longer for commands in flight")
		}
	}
}

// waitForSocket returns once FerretDB accepts a connection, or with why it never will.
func waitForSocket(ctx context.Context, dial func() (net.Conn, error), ran <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		connection, err := dial()
		if err == nil {
			return connection.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("FerretDB did not open its socket: %w", err)
		}
		select {
		case err := <-ran:
			return fmt.Errorf("FerretDB stopped while starting: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// poolMaxConns reads the pool size FerretDB will give its PostgreSQL connections.
func poolMaxConns(postgresURL string) (int, error) {
	parsed, err := url.Parse(postgresURL)
	if err != nil {
		return 0, fmt.Errorf("bad -postgresql-url: %w", err)
	}
	value := parsed.Query().Get("pool_max_conns")
	if value == "" {
		return defaultPoolMaxConns, nil
	}
	pool, err := strconv.Atoi(value)
	if err != nil || pool < 1 {
		return 0, errors.New("bad pool_max_conns in -postgresql-url: " + value)
	}
	return pool, nil
}

func fail(code int, err error) {
	fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
	os.Exit(code)
}

// Command nostr-relay runs khatru, a maintained Nostr relay framework, over an in-memory Badger
// event store, so the tests can publish to a relay that checks events the way public relays do:
// ids and BIP-340 signatures verified, one copy per id, NIP-01 filters, replaceable kinds.
// It keeps nothing on disk: every start is an empty relay.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	eventbadger "github.com/fiatjaf/eventstore/badger"
	"github.com/fiatjaf/khatru"
	"github.com/fiatjaf/khatru/policies"
)

// kindsFrom reads "0,1,10002" into the kinds a relay that only carries some kinds accepts.
func kindsFrom(list string) ([]uint16, error) {
	kinds := []uint16{}
	for _, field := range strings.Split(list, ",") {
		if strings.TrimSpace(field) == "" {
			continue
		}
		kind, err := strconv.ParseUint(strings.TrimSpace(field), 10, 16)
		if err != nil {
			return nil, fmt.Errorf("bad kind %q: %w", field, err)
		}
		kinds = append(kinds, uint16(kind))
	}
	return kinds, nil
}

func main() {
	listen := flag.String("listen", "127.0.0.1:7447", "TCP address to listen on")
	onlyKinds := flag.String("only-kinds", "", "comma-separated kinds this relay accepts (empty: every kind)")
	flag.Parse()

	kinds, err := kindsFrom(*onlyKinds)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nostr-relay: -only-kinds: %v\n", err)
		os.Exit(2)
	}

	store := &eventbadger.BadgerBackend{
		BadgerOptionsModifier: func(options badger.Options) badger.Options {
			return options.WithInMemory(true).WithLogger(nil)
		},
	}
	if err := store.Init(); err != nil {
		fmt.Fprintf(os.Stderr, "nostr-relay: event store: %v\n", err)
		os.Exit(1)
	}
	defer store.Close()

	relay := khatru.NewRelay()
	relay.Info.Name = "SPS test relay"
	relay.Info.Description = "khatru over an in-memory event store, for SPS's tests"
	relay.StoreEvent = append(relay.StoreEvent, store.SaveEvent)
	relay.QueryEvents = append(relay.QueryEvents, store.QueryEvents)
	relay.CountEvents = append(relay.CountEvents, store.CountEvents)
	relay.DeleteEvent = append(relay.DeleteEvent, store.DeleteEvent)
	relay.ReplaceEvent = append(relay.ReplaceEvent, store.ReplaceEvent)
	// The event checks public relays commonly add; the rate limits of khatru's defaults are left out,
	// since a test sends many events from one address.
	relay.RejectEvent = append(relay.RejectEvent, policies.RejectEventsWithBase64Media, policies.ValidateKind)
	if len(kinds) > 0 {
		relay.RejectEvent = append(relay.RejectEvent, policies.RestrictToSpecifiedKinds(false, kinds...))
	}

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nostr-relay: %v\n", err)
		os.Exit(1)
	}
	server := &http.Server{Handler: relay, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		server.Shutdown(shutdown)
	}()

	fmt.Println("nostr-relay listening on ws://" + listener.Addr().String())
	if err := server.Serve(listener); err != nil && err != http.ErrServerClosed {
		fmt.Fprintf(os.Stderr, "nostr-relay: %v\n", err)
		os.Exit(1)
	}
}

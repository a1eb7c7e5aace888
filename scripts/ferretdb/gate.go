package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
)

// Why a gate in front of FerretDB: with the PostgreSQL backend, FerretDB 1.24 answers an update,
// a findAndModify or a delete by reading the matching rows on one pooled connection and, while
// those rows are still open, writing on a second one. When as many such commands arrive at once
// as the pool has connections, each holds one and waits forever for another: every later command
// waits too, and FerretDB no longer stops on SIGTERM. The gate lets at most half the pool's
// connections' worth of commands through at once, so the commands in flight can never hold them
// all. Commands that take no new connection (a cursor's next batch, its end, the handshake and
// pings) pass at once: a cursor's next batch frees the connection its rows hold.

const (
	wireHeaderBytes = 16
	opMsg           = 2013
	moreToComeFlag  = 1 << 1
	checksumFlag    = 1 << 0
	// MongoDB's own limit on a message (maxMessageSizeBytes); a larger length is a broken stream.
	maxWireMessageBytes = 48_000_000
)

// Commands that never take a pooled connection of their own.
var ungatedCommands = map[string]bool{
	"getMore": true, "killCursors": true, "hello": true, "isMaster": true, "ismaster": true,
	"ping": true, "buildInfo": true, "buildinfo": true, "endSessions": true,
	"saslStart": true, "saslContinue": true,
}

// gatedProxy forwards MongoDB wire connections to FerretDB, holding commands back while
// `slots` commands are already in flight.
type gatedProxy struct {
	dial   func() (net.Conn, error)
	slots  chan struct{}
	logger *slog.Logger
}

func newGatedProxy(dial func() (net.Conn, error), maxInFlight int, logger *slog.Logger) *gatedProxy {
	return &gatedProxy{dial: dial, slots: make(chan struct{}, max(1, maxInFlight)), logger: logger}
}

// serve accepts clients until the listener closes; their connections end with the process.
func (p *gatedProxy) serve(listener net.Listener) error {
	for {
		client, err := listener.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		go p.relay(client)
	}
}

// relay carries one client's connection. A client sends one command and waits for its answer
// (drivers do not pipeline), so the slot a command took is handed back with its first reply.
func (p *gatedProxy) relay(client net.Conn) {
	server, err := p.dial()
	if err != nil {
		p.logger.Warn("gate: cannot reach FerretDB", slog.String("error", err.Error()))
		client.Close()
		return
	}

	done := make(chan struct{})
	// One entry per command sent and not yet answered: whether it holds a slot.
	holdsSlot := make(chan bool, 64)
	var closing sync.Once
	closeBoth := func() {
		closing.Do(func() {
			close(done)
			client.Close()
			server.Close()
		})
	}

	go func() {
		defer closeBoth()
		p.forwardReplies(server, client, holdsSlot)
	}()
	p.forwardCommands(client, server, holdsSlot, done)
	closeBoth()
	// Slots of commands whose answers will never come back.
	for {
		select {
		case gated := <-holdsSlot:
			if gated {
				<-p.slots
			}
		default:
			return
		}
	}
}

func (p *gatedProxy) forwardCommands(client, server net.Conn, holdsSlot chan<- bool, done <-chan struct{}) {
	for {
		message, err := readWireMessage(client)
		if err != nil {
			return
		}
		gated, answered := classifyCommand(message)
		if gated {
			select {
			case p.slots <- struct{}{}:
			case <-done:
				return
			}
		}
		if answered {
			select {
			case holdsSlot <- gated:
			case <-done:
				if gated {
					<-p.slots
				}
				return
			}
		} else if gated {
			<-p.slots
		}
		if _, err := server.Write(message); err != nil {
			return
		}
	}
}

func (p *gatedProxy) forwardReplies(server, client net.Conn, holdsSlot <-chan bool) {
	continuing := false
	for {
		message, err := readWireMessage(server)
		if err != nil {
			return
		}
		// A reply flagged "more to come" is followed by more replies to the same command.
		if !continuing {
			select {
			case gated := <-holdsSlot:
				if gated {
					<-p.slots
				}
			default:
			}
		}
		continuing = opCode(message) == opMsg && flagBits(message)&moreToComeFlag != 0
		if _, err := client.Write(message); err != nil {
			return
		}
	}
}

// readWireMessage reads one whole message: its length comes first, in its header.
func readWireMessage(reader io.Reader) ([]byte, error) {
	header := make([]byte, wireHeaderBytes)
	if _, err := io.ReadFull(reader, header); err != nil {
		return nil, err
	}
	length := int(int32(binary.LittleEndian.Uint32(header)))
	if length < wireHeaderBytes || length > maxWireMessageBytes {
		return nil, errors.New("gate: message length out of range")
	}
	message := make([]byte, length)
	copy(message, header)
	if _, err := io.ReadFull(reader, message[wireHeaderBytes:]); err != nil {
		return nil, err
	}
	return message, nil
}

func opCode(message []byte) int32 {
	return int32(binary.LittleEndian.Uint32(message[12:16]))
}

func flagBits(message []byte) uint32 {
	if len(message) < wireHeaderBytes+4 {
		return 0
	}
	return binary.LittleEndian.Uint32(message[16:20])
}

// classifyCommand says whether a client's message waits for a slot and whether FerretDB answers
// it. Anything but a command message (the legacy handshake) passes, as does a command whose
// sender expects no answer.
func classifyCommand(message []byte) (gated, answered bool) {
	if opCode(message) != opMsg {
		return false, true
	}
	if flagBits(message)&moreToComeFlag != 0 {
		return false, false
	}
	name, ok := commandName(message)
	return !ok || !ungatedCommands[name], true
}

// commandName is the first key of the message's body document (section kind 0).
func commandName(message []byte) (string, bool) {
	end := len(message)
	if flagBits(message)&checksumFlag != 0 {
		end -= 4
	}
	offset := wireHeaderBytes + 4
	for offset < end {
		kind := message[offset]
		offset++
		if offset+4 > end {
			return "", false
		}
		size := int(int32(binary.LittleEndian.Uint32(message[offset : offset+4])))
		if size < 5 || offset+size > end {
			return "", false
		}
		if kind == 0 {
			// int32 length, then the first element: a type byte and a NUL-terminated name.
			element := message[offset+5 : offset+size]
			name, _, found := bytes.Cut(element, []byte{0})
			return string(name), found
		}
		offset += size
	}
	return "", false
}

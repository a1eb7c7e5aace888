import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One message as the sink received it: the envelope and the raw RFC 5322 text after DATA. */
export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpSink {
  port: number;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * The smallest SMTP server a real listmonk can send a campaign through on loopback (RFC 5321
 * without extensions: no STARTTLS, no AUTH), keeping every message, so a test can read the email
 * a started campaign really sent instead of trusting the campaign's status alone.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const sockets = new Set<Socket>();

  function session(socket: Socket): void {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffered = '';
    let envelope: ReceivedMail = { from: '', to: [], data: '' };
    let inData = false;
    const reply = (line: string) => { socket.write(`${line}\r\n`); };

    function command(line: string): void {
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO' || verb === 'HELO') reply('250 sps-smtp-sink');
      else if (verb === 'MAIL') {
        envelope = { from: /<([^<>]*)>/.exec(line)?.[1] ?? '', to: [], data: '' };
        reply('250 OK');
      } else if (verb === 'RCPT') {
        envelope.to.push(/<([^<>]*)>/.exec(line)?.[1] ?? '');
        reply('250 OK');
      } else if (verb === 'DATA') {
        inData = true;
        reply('354 end with <CRLF>.<CRLF>');
      } else if (verb === 'QUIT') {
        reply('221 bye');
        socket.end();
      } else if (verb === 'RSET' || verb === 'NOOP') reply('250 OK');
      else reply('502 not implemented');
    }

    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (;;) {
        if (inData) {
          const end = buffered.indexOf('\r\n.\r\n');
          if (end === -1) return;
          // Dot-stuffing (RFC 5321 4.5.2): a line that starts with a dot was sent with one more.
          envelope.data = buffered.slice(0, end).replace(/^\.\./gm, '.');
          messages.push(envelope);
          buffered = buffered.slice(end + 5);
          inData = false;
          reply('250 OK queued');
          continue;
        }
        const end = buffered.indexOf('\r\n');
        if (end === -1) return;
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        command(line);
      }
    });
    socket.on('error', () => { socket.destroy(); });
    reply('220 sps-smtp-sink ESMTP');
  }

  const server: Server = createServer(session);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    messages,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => { resolve(); });
    }),
  };
}

interface MailEntity {
  header: (name: string) => string | null;
  body: string;
}

/**
 * Headers (folded lines unfolded) and the body of one entity, the body decoded from
 * quoted-printable; lines end in CRLF on the wire and in LF here, as tests write text.
 */
function entity(raw: string): MailEntity {
  const unix = (text: string) => text.replace(/\r\n/g, '\n');
  const whole = unix(raw);
  const split = whole.indexOf('\n\n');
  const lines = whole.slice(0, split).replace(/\n[ \t]+/g, ' ').split('\n');
  const body = whole.slice(split + 2);
  const header = (name: string): string | null => {
    const line = lines.find((entry) => entry.toLowerCase().startsWith(`${name.toLowerCase()}:`));
    return line === undefined ? null : line.slice(name.length + 1).trim();
  };
  if (!/quoted-printable/i.test(header('content-transfer-encoding') ?? '')) return { header, body };
  const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)));
  return { header, body: Buffer.from(bytes, 'latin1').toString('utf8') };
}

/**
 * A received message's headers and its HTML and plain-text bodies: the body itself, or the parts
 * of a multipart/alternative message (listmonk sends one when a campaign has an `altbody`).
 */
export function readMail(mail: ReceivedMail): { header: (name: string) => string | null; html: string; text: string } {
  const message = entity(mail.data);
  const type = message.header('content-type') ?? '';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = boundary === undefined || !/^multipart\//i.test(type)
    ? [message]
    : message.body.split(`--${boundary}`).slice(1, -1).map((part) => entity(part.replace(/^\n/, '')));
  const ofType = (wanted: string) =>
    parts.find((part) => (part.header('content-type') ?? 'text/plain').toLowerCase().startsWith(wanted))?.body ?? '';
  return { header: message.header, html: ofType('text/html'), text: ofType('text/plain') };
}

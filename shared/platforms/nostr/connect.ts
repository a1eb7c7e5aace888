import { z } from 'zod';
import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { encodeNostrCredential, type NostrCredential } from './credential.ts';
import type { NostrEvent } from './event.ts';
import { NostrKeyError, newNostrKeys, nostrKeysFrom, npubOf } from './keys.ts';
import { bunkerPointerFrom, openRemoteSigner } from './remote-signer.ts';
import { relayText, relayUrlsFrom } from './relay-url.ts';
import { queryRelays } from './relay-query.ts';

const provider = 'nostr';

function refused(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message, cause });
}

const metadata = z.object({
  name: z.string().optional().catch(undefined),
  display_name: z.string().optional().catch(undefined),
  picture: z.url({ protocol: /^https?$/ }).max(2000).optional().catch(undefined),
});

/** The kind 0 content (NIP-01: a JSON object); a malformed one tells no more than no profile at all. */
function profileOf(profileEvent: NostrEvent | null): z.infer<typeof metadata> {
  if (profileEvent === null) return {};
  let content: unknown;
  try {
    content = JSON.parse(profileEvent.content);
  } catch {
    // Some clients have written plain text here; the npub stands in as the name.
    return {};
  }
  const parsed = metadata.safeParse(content);
  return parsed.success ? parsed.data : {};
}

export const nostrConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'privateKey',
      label: 'Private key',
      kind: 'secret',
      help: 'Your nsec1... key (or its 64 hex characters), from your Nostr client\'s key or backup settings;'
        + ' SPS signs your notes with it. Leave it empty to use a remote signer instead.',
      optional: true,
    },
    {
      key: 'bunker',
      label: 'Remote signer (bunker URL)',
      kind: 'secret',
      help: 'Instead of the private key: the bunker://... connection URL your remote signer (nsec.app, Amber,'
        + ' nsecBunker) shows; it keeps your key and signs each note when SPS asks (NIP-46).',
      optional: true,
    },
    {
      key: 'relays',
      label: 'Relays',
      kind: 'textarea',
      help: 'The relays to publish to, one wss:// URL per line, like wss://relay.damus.io.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const typedKey = values.privateKey?.trim() ?? '';
    const typedBunker = values.bunker?.trim() ?? '';
    if (typedKey !== '' && typedBunker !== '') {
      throw refused('give either your private key or a bunker URL, not both');
    }
    if (typedKey === '' && typedBunker === '') {
      throw refused('give your private key (nsec) or the bunker:// URL of your remote signer');
    }
    const relays = relayUrlsFrom(values.relays ?? '', context.userHosts);
    const stored = relays.map(relayText);
    let publicKey: string;
    let credential: NostrCredential;
    if (typedKey !== '') {
      let keys;
      try {
        keys = nostrKeysFrom(typedKey);
      } catch (error) {
        if (!(error instanceof NostrKeyError)) throw error;
        if (typedKey.startsWith('bunker://')) {
          throw refused('this is a bunker URL: paste it in the remote signer field and leave the private key empty');
        }
        throw refused(error.message, error);
      }
      publicKey = keys.publicKey;
      credential = { mode: 'key', privateKey: keys.privateKey, relays: stored };
    } else {
      const bunker = bunkerPointerFrom(typedBunker, context.userHosts);
      // The client key is SPS's own identity towards the signer, kept to ask for signatures later.
      const client = newNostrKeys();
      const signer = openRemoteSigner(bunker, client, context);
      try {
        const secret = bunker.secret === null ? [] : [bunker.secret];
        await signer.request('connect', [bunker.remoteSignerPubkey, ...secret]);
        // NIP-46: the signer's own key may differ from the user's, which only get_public_key tells.
        publicKey = await signer.request('get_public_key', []);
      } finally {
        signer.close();
      }
      if (!/^[0-9a-f]{64}$/.test(publicKey)) {
        throw refused('the remote signer answered get_public_key with something that is not a public key');
      }
      credential = {
        mode: 'bunker',
        clientSecretKey: client.privateKey,
        remoteSignerPubkey: bunker.remoteSignerPubkey,
        userPubkey: publicKey,
        relays: stored,
        signerRelays: bunker.relays.map(relayText),
        ...(bunker.secret === null ? {} : { secret: bunker.secret }),
      };
    }

    const filter = { kinds: [0], authors: [publicKey], limit: 1 };
    const found = await queryRelays(relays, filter, context.userHosts, context.timeoutMs);
    if (found.answered.length === 0) {
      // Which relay failed how stays in the cause: the message must not map hosts and ports.
      const causes = found.failures.map((failure) => failure.cause);
      const message = `none of the relays answered: could not read from ${stored.join(', ')}`;
      throw new PlatformError({ kind: 'retryable', provider, message, cause: new AggregateError(causes) });
    }
    const newest = found.events[0] ?? null;
    const profile = profileOf(newest);
    const npub = npubOf(publicKey);
    const name = [profile.display_name, profile.name].map((text) => text?.trim() ?? '').find((text) => text !== '');

    return {
      // The public key is the account: it is what every event names as its author.
      accountId: publicKey,
      name: name ?? `${npub.slice(0, 12)}…${npub.slice(-4)}`,
      username: npub,
      picture: profile.picture ?? null,
      instanceUrl: null,
      accessToken: encodeNostrCredential(credential),
      refreshToken: null,
      expiresAt: null,
    };
  },
};

import { definePlatform } from '../kit/platform-definition.ts';

/** Facts: ../shared/platforms/open-and-community.md, section 4 (Nostr). */
export const nostr = definePlatform({
  identifier: 'nostr',
  displayName: 'Nostr',
  group: 'social',
  // The protocol sets no limit; relays may publish a lower max_content_length (NIP-11).
  textLimit: 100000,
  textCounting: 'code-points',
  replies: 'thread',
  mediaByUrl: true,
  mediaRules: 'Images and videos are linked by their public URL after the text, with NIP-92 imeta tags; '
    + 'readers\' clients fetch them from SPS\'s media address.',
  rules:
    'Posts are signed kind 1 events sent to the account\'s relays; a post counts as published once one relay accepts it. Use plain text: Markdown and HTML are not rendered. Thread parts reply to the first note (root) and the previous one (NIP-10). Each relay may set its own length and rate limits.',
  // A kind 1 note has no options beyond its text, media and reply tags.
  settings: null,
  tools: [
    {
      methodName: 'relays',
      description: 'Reads the relay list the account publishes (kind 10002) and the relays SPS will write to.',
      dataSchema: [],
    },
    {
      methodName: 'relayLimits',
      description: 'Reads a relay\'s published limits (NIP-11): content length, auth and payment requirements.',
      dataSchema: [{ key: 'relay', type: 'string', description: 'Relay URL (wss://...)' }],
    },
    {
      methodName: 'profile',
      description: 'Reads a public key\'s latest profile (kind 0): name, picture, NIP-05 address.',
      dataSchema: [{ key: 'pubkey', type: 'string', description: 'Public key as hex or npub' }],
    },
  ],
  // A note takes any number of linked files; relays may still refuse long notes (NIP-11 limits).
  checkPost: () => [],
});

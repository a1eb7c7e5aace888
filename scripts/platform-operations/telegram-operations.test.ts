import { describe, expect, it } from 'vitest';
import { telegramOperations } from './telegram-operations.ts';

/** A Bot API description as PaulSonOfLars/telegram-bot-api-spec writes one, cut to what the reader meets. */
const spec = {
  version: 'Bot API test',
  methods: {
    getMe: {
      name: 'getMe', href: 'https://core.telegram.org/bots/api#getme', description: ['Who.'], returns: ['User'],
    },
    sendPhoto: {
      name: 'sendPhoto',
      href: 'https://core.telegram.org/bots/api#sendphoto',
      description: ['Sends a photo.'],
      returns: ['Message'],
      fields: [
        { name: 'chat_id', types: ['Integer', 'String'], required: true, description: 'The chat' },
        { name: 'photo', types: ['InputFile', 'String'], required: true, description: 'The photo' },
        { name: 'disable_notification', types: ['Boolean'], required: false, description: 'Silently' },
        { name: 'reply_parameters', types: ['ReplyParameters'], required: false, description: 'The reply' },
      ],
    },
    getChatMember: {
      name: 'getChatMember',
      href: 'https://core.telegram.org/bots/api#getchatmember',
      description: ['A member.'],
      returns: ['ChatMember'],
      fields: [{ name: 'user_id', types: ['Integer'], required: true, description: 'The user' }],
    },
  },
  types: {
    User: {
      name: 'User',
      href: 'https://core.telegram.org/bots/api#user',
      description: ['A user.'],
      fields: [
        { name: 'id', types: ['Integer'], required: true, description: 'Its id' },
        { name: 'username', types: ['String'], required: false, description: 'Optional. Its name' },
      ],
    },
    Message: {
      name: 'Message',
      href: 'https://core.telegram.org/bots/api#message',
      description: ['A message.'],
      fields: [
        { name: 'message_id', types: ['Integer'], required: true, description: 'Its id' },
        { name: 'photo', types: ['Array of PhotoSize'], required: false, description: 'Optional. Sizes' },
      ],
    },
    PhotoSize: {
      name: 'PhotoSize',
      href: 'https://core.telegram.org/bots/api#photosize',
      description: ['One size.'],
      fields: [{ name: 'width', types: ['Integer'], required: true, description: 'Width' }],
    },
    ReplyParameters: {
      name: 'ReplyParameters',
      href: 'https://core.telegram.org/bots/api#replyparameters',
      description: ['A reply.'],
      fields: [{ name: 'message_id', types: ['Integer'], required: true, description: 'The message' }],
    },
    ChatMember: {
      name: 'ChatMember',
      href: 'https://core.telegram.org/bots/api#chatmember',
      description: ['One of:'],
      subtypes: ['ChatMemberOwner', 'ChatMemberLeft'],
    },
    ChatMemberOwner: {
      name: 'ChatMemberOwner',
      href: 'https://core.telegram.org/bots/api#chatmemberowner',
      description: ['An owner.'],
      subtype_of: ['ChatMember'],
      fields: [
        { name: 'status', types: ['String'], required: true, description: 'The member\'s status, always "creator"' },
        { name: 'user', types: ['User'], required: true, description: 'The user' },
      ],
    },
    ChatMemberLeft: {
      name: 'ChatMemberLeft',
      href: 'https://core.telegram.org/bots/api#chatmemberleft',
      description: ['Gone.'],
      subtype_of: ['ChatMember'],
      fields: [{ name: 'status', types: ['String'], required: true, description: 'The status, always "left"' }],
    },
    ResponseParameters: {
      name: 'ResponseParameters',
      href: 'https://core.telegram.org/bots/api#responseparameters',
      description: ['Why.'],
      fields: [{ name: 'retry_after', types: ['Integer'], required: false, description: 'Optional. Wait' }],
    },
    Unused: { name: 'Unused', href: 'https://core.telegram.org/bots/api#unused', description: ['Never reached.'] },
  },
};

const refusal = {
  type: 'object',
  required: ['ok', 'error_code', 'description'],
  properties: {
    ok: { const: false },
    error_code: { type: 'integer' },
    description: { type: 'string' },
    parameters: { $ref: '#/definitions/ResponseParameters' },
  },
};

describe('telegramOperations', () => {
  const derived = telegramOperations(spec, ['POST /bot{token}/sendPhoto', 'POST /bot{token}/getMe',
    'GET /bot{token}/getChatMember']);

  it('takes a POST method\'s parameters as a JSON body, or as text in a multipart form', () => {
    const [sendPhoto] = derived.operations;
    expect(sendPhoto).toEqual({
      route: 'POST /bot{token}/sendPhoto',
      pathParameters: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      body: {
        'application/json': {
          type: 'object',
          properties: {
            chat_id: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
            photo: { type: 'string' },
            disable_notification: { type: 'boolean' },
            reply_parameters: { $ref: '#/definitions/ReplyParameters' },
          },
          required: ['chat_id', 'photo'],
        },
        'multipart/form-data': {
          type: 'object',
          properties: {
            chat_id: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
            photo: { type: 'string' },
            disable_notification: { type: 'boolean' },
            reply_parameters: { type: 'string', contentMediaType: 'application/json' },
          },
          required: ['chat_id', 'photo'],
        },
      },
      bodyRequired: true,
      responses: {
        200: {
          type: 'object',
          required: ['ok', 'result'],
          properties: { ok: { const: true }, result: { $ref: '#/definitions/Message' } },
        },
        '4XX': refusal,
        '5XX': refusal,
      },
    });
  });

  it('gives a method without parameters a body that holds none, and a GET its parameters in the query', () => {
    const [, getMe, getChatMember] = derived.operations;
    expect(getMe?.body).toEqual({
      'application/json': { type: 'object', properties: {} },
      'multipart/form-data': { type: 'object', properties: {} },
    });
    expect(getMe?.bodyRequired).toBe(false);
    expect(getChatMember?.query).toEqual({
      type: 'object', properties: { user_id: { type: 'integer' } }, required: ['user_id'],
    });
    expect(getChatMember?.body).toBeUndefined();
  });

  it('gathers the types the operations reach; a type with subtypes is their union, told apart by its tag', () => {
    expect(Object.keys(derived.definitions)).toEqual([
      'ChatMember', 'ChatMemberLeft', 'ChatMemberOwner', 'Message', 'PhotoSize', 'ReplyParameters',
      'ResponseParameters', 'User',
    ]);
    expect(derived.definitions.ChatMember).toEqual({
      anyOf: [{ $ref: '#/definitions/ChatMemberOwner' }, { $ref: '#/definitions/ChatMemberLeft' }],
    });
    expect(derived.definitions.ChatMemberOwner).toEqual({
      type: 'object',
      properties: { status: { type: 'string', const: 'creator' }, user: { $ref: '#/definitions/User' } },
      required: ['status', 'user'],
    });
    expect(derived.definitions.Message).toEqual({
      type: 'object',
      properties: {
        message_id: { type: 'integer' },
        photo: { type: 'array', items: { $ref: '#/definitions/PhotoSize' } },
      },
      required: ['message_id'],
    });
  });

  it('refuses a route that is not a Bot API method, or a method the description lacks', () => {
    expect(() => telegramOperations(spec, ['POST /sendPhoto'])).toThrow(/not a Bot API route/);
    expect(() => telegramOperations(spec, ['POST /bot{token}/sendPhotos'])).toThrow(/methods like it: sendPhoto/);
    const broken = { ...spec, methods: { getMe: { ...spec.methods.getMe, returns: ['Bot'] } } };
    expect(() => telegramOperations(broken, ['POST /bot{token}/getMe'])).toThrow(/does not define: Bot/);
  });
});

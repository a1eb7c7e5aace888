import { jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import type { ListmonkState, SimulatedCampaign } from './listmonk-state.ts';

/**
 * Campaigns as listmonk v5 handles them (cmd/campaigns.go, design-blogging-business.md 8.2):
 * `POST /api/campaigns` validates like validateCampaignFields (from_email, name 1–2000, subject
 * 1–5000, lists, messenger, the body compiled as a Go template) and makes a draft;
 * `PUT /api/campaigns/{id}/status` moves it along the allowed transitions; `GET /api/campaigns`
 * searches name and subject (`query`, ILIKE %q%). Refusals are 400 `{message}` in listmonk's words.
 */

const badRequest = (message: string): SimulatedAnswer => ({ status: 400, body: { message } });

/** listmonk's template functions (internal/manager TemplateFuncs and sprig's, the ones emails use). */
const templateFunctions = new Set([
  'TrackLink', 'TrackView', 'UnsubscribeURL', 'ManageURL', 'OptinURL', 'MessageURL', 'ArchiveURL', 'RootURL',
  'Date', 'L', 'Safe', 'upper', 'lower', 'title', 'default',
]);

/** The body compiled the way Go's text/template would refuse it, with its error text. */
function templateError(body: string): string | null {
  let rest = body;
  for (let open = rest.indexOf('{{'); open !== -1; open = rest.indexOf('{{')) {
    const close = rest.indexOf('}}', open);
    if (close === -1) return 'template: content:1: unclosed action';
    const action = rest.slice(open + 2, close).replace(/^-?\s*|(?<!\s)\s*-?$/g, '');
    const word = /^[A-Za-z_]\w*/.exec(action)?.[0];
    const keywords = ['if', 'else', 'end', 'range', 'with', 'template', 'block', 'define', 'nil'];
    if (word !== undefined && !templateFunctions.has(word) && !keywords.includes(word)) {
      return `template: content:1: function "${word}" not defined`;
    }
    rest = rest.slice(close + 2);
  }
  return null;
}

const fromAddress = /^[^<>]*\S\s+<[^\s<>@]+@[^\s<>]+>/;
const bareEmail = /^[^\s@<>]+@[^\s@<>]+$/;
const contentTypes = ['richtext', 'html', 'markdown', 'plain', 'visual'];

export function presentCampaign(state: ListmonkState, campaign: SimulatedCampaign, noBody = false) {
  return {
    id: campaign.id,
    uuid: campaign.uuid,
    created_at: campaign.createdAt,
    updated_at: campaign.createdAt,
    name: campaign.name,
    subject: campaign.subject,
    from_email: campaign.fromEmail,
    body: noBody ? '' : campaign.body,
    altbody: campaign.altbody,
    send_at: null,
    status: campaign.status,
    content_type: campaign.contentType,
    tags: campaign.tags,
    template_id: campaign.templateId,
    messenger: campaign.messenger,
    type: campaign.type,
    lists: campaign.lists.map((id) => ({ id, name: state.lists.find((list) => list.id === id)?.name ?? '' })),
    media: [],
    started_at: campaign.status === 'draft' ? null : campaign.createdAt,
    to_send: campaign.toSend,
    sent: campaign.sent,
    views: campaign.views,
    clicks: campaign.clicks,
    bounces: campaign.bounces,
    archive: false,
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function createCampaign(state: ListmonkState, request: SimulatedRequest): SimulatedAnswer {
  const body = jsonBody(request);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return badRequest('code=400, message=Syntax error: offset=1, error=invalid character');
  }
  const fields = body as Record<string, unknown>;
  const fromEmail = text(fields.from_email);
  if (fromEmail !== '' && !fromAddress.test(fromEmail) && !bareEmail.test(fromEmail)) {
    return badRequest('Invalid `from_email`.');
  }
  const name = text(fields.name);
  const subject = text(fields.subject);
  if (name.length < 1 || name.length > 2000) return badRequest('Invalid length for name.');
  if (subject.length < 1 || subject.length > 5000) return badRequest('Invalid length for subject.');
  const lists = Array.isArray(fields.lists) ? fields.lists.filter((id): id is number => Number.isInteger(id)) : [];
  if (lists.length === 0) return badRequest('Invalid list IDs.');
  const messenger = text(fields.messenger) === '' ? 'email' : text(fields.messenger);
  if (messenger !== 'email') return badRequest(`Unknown messenger ${messenger}.`);
  const contentType = text(fields.content_type) === '' ? 'richtext' : text(fields.content_type);
  if (!contentTypes.includes(contentType)) return badRequest(`invalid content_type: ${contentType}`);
  const compileError = templateError(text(fields.body));
  if (compileError !== null) return badRequest(`Error compiling campaign body: ${compileError}`);
  const known = lists.filter((id) => state.lists.some((list) => list.id === id));
  const templateId = typeof fields.template_id === 'number' ? fields.template_id
    : state.templates.find((template) => template.isDefault)?.id ?? null;
  const campaign = state.addCampaign({
    name,
    subject,
    // Rows for lists that do not exist are not written (the insert selects from lists).
    lists: known,
    type: fields.type === 'optin' ? 'optin' : 'regular',
    contentType,
    body: text(fields.body),
    altbody: typeof fields.altbody === 'string' ? fields.altbody : null,
    fromEmail: fromEmail === '' ? 'listmonk <noreply@listmonk.yoursite.com>' : fromEmail,
    templateId,
    messenger,
    tags: Array.isArray(fields.tags) ? fields.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    toSend: 0,
  });
  return { status: 200, body: { data: presentCampaign(state, campaign) } };
}

export function findCampaign(state: ListmonkState, id: string): SimulatedCampaign | SimulatedAnswer {
  const campaign = state.campaigns.find((candidate) => String(candidate.id) === id);
  return campaign ?? badRequest('Campaign not found.');
}

export function queryCampaigns(state: ListmonkState, request: SimulatedRequest): SimulatedAnswer {
  const query = (request.query.get('query') ?? '').trim().toLowerCase();
  const perPage = Number(request.query.get('per_page') ?? '20');
  const noBody = request.query.get('no_body') === 'true';
  const matching = state.campaigns
    .filter((campaign) => query === '' || `${campaign.name} ${campaign.subject}`.toLowerCase().includes(query))
    // listmonk compares `order` with its lowercase constants: only `asc` turns the list around;
    // anything else, `ASC` and `DESC` as its swagger spells them included, falls back to newest first.
    .sort((a, b) => (request.query.get('order') === 'asc' ? a.id - b.id : b.id - a.id));
  const page = Number.isInteger(perPage) && perPage > 0 ? matching.slice(0, perPage) : matching;
  return {
    status: 200,
    body: {
      data: {
        results: page.map((campaign) => presentCampaign(state, campaign, noBody)),
        query, total: matching.length, per_page: perPage, page: 1,
      },
    },
  };
}

const allowedFrom: Record<string, SimulatedCampaign['status'][]> = {
  running: ['draft', 'paused'],
  paused: ['running'],
  cancelled: ['running', 'paused'],
  scheduled: ['draft'],
  draft: ['scheduled'],
};

const transitionRefusals: Record<string, string> = {
  running: 'Only paused campaigns and drafts can be started.',
  paused: 'Only active campaigns can be paused.',
  cancelled: 'Only active campaigns can be cancelled.',
  scheduled: 'Only draft campaigns can be scheduled.',
  draft: 'Only scheduled campaigns can be saved as drafts.',
};

/** Starting counts the lists' subscribers as `to_send` and, in this stand-in, sends to them at once. */
export function updateStatus(
  state: ListmonkState,
  campaign: SimulatedCampaign,
  request: SimulatedRequest,
): SimulatedAnswer {
  const body = jsonBody(request);
  const status = typeof body === 'object' && body !== null && 'status' in body ? String(body.status) : '';
  const from = allowedFrom[status];
  if (from === undefined) return badRequest('Invalid status.');
  if (!from.includes(campaign.status)) return badRequest(transitionRefusals[status] ?? 'Invalid status.');
  campaign.status = status as SimulatedCampaign['status'];
  if (status === 'running') {
    campaign.toSend = campaign.lists
      .reduce((sum, id) => sum + (state.lists.find((list) => list.id === id)?.subscriberCount ?? 0), 0);
    campaign.sent = campaign.toSend;
  }
  return { status: 200, body: { data: presentCampaign(state, campaign) } };
}

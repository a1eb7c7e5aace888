import { randomUUID } from 'node:crypto';

/** What one simulated listmonk instance holds. Facts: design-blogging-business.md, section 8. */
export interface SimulatedList {
  id: number;
  name: string;
  type: 'public' | 'private';
  optin: 'single' | 'double';
  status: 'active' | 'archived';
  subscriberCount: number;
  tags: string[];
}

export interface SimulatedTemplate {
  id: number;
  name: string;
  type: 'campaign' | 'campaign_visual' | 'tx';
  isDefault: boolean;
}

export type CampaignStatus = 'draft' | 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';

export interface SimulatedCampaign {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  lists: number[];
  type: 'regular' | 'optin';
  contentType: string;
  body: string;
  altbody: string | null;
  fromEmail: string;
  templateId: number | null;
  messenger: string;
  tags: string[];
  status: CampaignStatus;
  toSend: number;
  sent: number;
  views: number;
  clicks: number;
  bounces: number;
  createdAt: string;
}

export interface SimulatedMedia {
  id: number;
  uuid: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export const defaultLists = (): SimulatedList[] => [
  { id: 1, name: 'Newsletter', type: 'public', optin: 'single', status: 'active', subscriberCount: 120, tags: [] },
  { id: 2, name: 'Members', type: 'private', optin: 'double', status: 'active', subscriberCount: 30, tags: ['paid'] },
  {
    id: 3, name: 'Old announcements', type: 'private', optin: 'single', status: 'archived', subscriberCount: 5,
    tags: [],
  },
];

export const defaultTemplates = (): SimulatedTemplate[] => [
  { id: 1, name: 'Default campaign template', type: 'campaign', isDefault: true },
  { id: 2, name: 'Plain', type: 'campaign', isDefault: false },
  { id: 3, name: 'Sample transactional template', type: 'tx', isDefault: false },
];

export class ListmonkState {
  campaigns: SimulatedCampaign[] = [];
  media: SimulatedMedia[] = [];
  private nextCampaign = 1;
  private nextMedia = 1;

  lists: SimulatedList[];
  templates: SimulatedTemplate[];

  constructor(lists: SimulatedList[], templates: SimulatedTemplate[]) {
    this.lists = lists;
    this.templates = templates;
  }

  addCampaign(fields: Omit<SimulatedCampaign, 'id' | 'uuid' | 'status' | 'sent' | 'views' | 'clicks' | 'bounces'
    | 'createdAt'>): SimulatedCampaign {
    const campaign: SimulatedCampaign = {
      ...fields, id: this.nextCampaign++, uuid: randomUUID(), status: 'draft', sent: 0, views: 0, clicks: 0,
      bounces: 0, createdAt: new Date().toISOString(),
    };
    this.campaigns.push(campaign);
    return campaign;
  }

  addMedia(filename: string, contentType: string, bytes: Buffer): SimulatedMedia {
    // The filesystem store never overwrites: a name taken gets a suffix (assertUniqueFilename).
    let name = filename;
    for (let copy = 1; this.media.some((file) => file.filename === name); copy += 1) {
      name = filename.replace(/(\.[^.]*)?$/, `_${String(copy)}$1`);
    }
    const file = { id: this.nextMedia++, uuid: randomUUID(), filename: name, contentType, bytes };
    this.media.push(file);
    return file;
  }
}

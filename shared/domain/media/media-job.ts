/** What the media worker is asked to do with one media record: fetch it from its URL first, or inspect it. */
export interface MediaJobRequest {
  organizationId: string;
  mediaId: string;
  kind: 'import' | 'inspect';
}

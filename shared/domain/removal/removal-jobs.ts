/**
 * The removals domain's queue port: one job takes a deleted post's published parts off its
 * platform. Asking twice for one post adds nothing while its job waits or runs.
 */
export interface RemovalJobs {
  request(job: { organizationId: string; postId: string }): Promise<void>;
}

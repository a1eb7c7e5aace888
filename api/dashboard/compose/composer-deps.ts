import type { PublicApiDeps } from '../../public/public-api-deps.ts';
import type { CreatePostsDeps } from '../../../shared/domain/posts/create-posts.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';

/**
 * What the composer needs beyond the other pages: what POST /posts creates posts with, what
 * POST /upload stores files with, and the organization's two hourly budgets, so that the
 * dashboard spends them as the API does.
 */
export type ComposerDeps = DashboardDeps & CreatePostsDeps & Pick<
  PublicApiDeps, 'limiter' | 'postValidationLimiter' | 'storage' | 'mediaLimits' | 'mediaQueue' | 'mediaWaitMs'
>;

import type { Config } from '../config/config.ts';
import { LocalDiskStorage } from './local-disk-storage.ts';
import type { Storage } from './storage.ts';

/**
 * The storage driver the configuration names (loadConfig already checked the S3 settings are
 * there). The AWS SDK is loaded only when S3 is used: it costs about 13 MB of memory.
 */
export async function createStorage(config: Config): Promise<Storage> {
  if (config.STORAGE_DRIVER === 'local') {
    return new LocalDiskStorage({ root: config.UPLOADS_DIR, publicBaseUrl: config.UPLOADS_PUBLIC_URL });
  }
  const { S3Storage } = await import('./s3-storage.ts');
  return new S3Storage({
    bucket: config.S3_BUCKET ?? '',
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    accessKeyId: config.S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: config.S3_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    publicBaseUrl: config.S3_PUBLIC_URL ?? '',
  });
}

// What scripts/bench/upload-benchmark.ts prints on stdout: made there, parsed by upload-rows.ts.
import { z } from 'zod';

/** One storage's upload rows: the same file sent to SPS's POST /upload and to a bare server, in turns. */
export const uploadPairResult = z.object({
  spsSeconds: z.array(z.number()),
  bareSeconds: z.array(z.number()),
  spsMibPerSecond: z.number(),
  bareMibPerSecond: z.number(),
  /** SPS's median throughput over the bare server's. */
  throughputRatio: z.number(),
  apiPeakRssMb: z.number(),
  barePeakRssMb: z.number(),
});
export type UploadPairResult = z.infer<typeof uploadPairResult>;

export const inspectionResult = z.object({
  files: z.number().int().positive(),
  spsMs: z.array(z.number()),
  bareMs: z.array(z.number()),
  spsMedianMs: z.number(),
  bareMedianMs: z.number(),
  ratio: z.number(),
});

export const uploadResults = z.object({
  fileMiB: z.number(),
  disk: uploadPairResult,
  s3: uploadPairResult,
  inspection: inspectionResult,
  targets: z.object({ throughputRatio: z.number(), apiPeakRssMb: z.number(), inspectionRatio: z.number() }),
});
export type UploadResults = z.infer<typeof uploadResults>;

/** The rows' targets: throughput at least this ratio, peak RSS under this, inspection at most this ratio. */
export const uploadTargets: UploadResults['targets'] = {
  throughputRatio: 0.7, apiPeakRssMb: 200, inspectionRatio: 1.2,
};

import type { Command } from 'commander';
import { activeCredential } from '../active-credential.ts';
import { segment, type ApiAnswer } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';
import { uploadFile } from '../multipart-upload.ts';
import { printJson, say } from '../output.ts';
import { progressBar, progressThresholdBytes, type ProgressBar } from '../progress-bar.ts';

/** A 202 means the service is still working on the media: say where to look. */
function notePending(answer: ApiAnswer): void {
  if (answer.status !== 202) return;
  const { id } = answer.body as { id?: unknown };
  if (typeof id === 'string') say(`Still processing; check with \`sps media:get ${id}\`.`);
}

/** Progress on stderr, only for files big enough to be worth watching. */
function progressForLargeFiles(): { onSent(sentBytes: number, totalBytes: number): void; finish(): void } {
  let bar: ProgressBar | null = null;
  return {
    onSent(sentBytes, totalBytes) {
      if (totalBytes <= progressThresholdBytes) return;
      bar ??= progressBar('Uploading', totalBytes);
      bar.update(sentBytes);
    },
    finish() {
      bar?.finish();
    },
  };
}

async function upload(file: string): Promise<void> {
  const credential = await activeCredential();
  const progress = progressForLargeFiles();
  try {
    const answer = await uploadFile(credential, file, progress);
    progress.finish();
    printJson(answer.body);
    notePending(answer);
  } catch (error) {
    progress.finish();
    throw error;
  }
}

export function registerMediaCommands(program: Command): void {
  defineCommand(program, 'upload', 'Upload an image or MP4 video to the media library', 'sps upload ./photo.png')
    .argument('<file>', 'path of the file')
    .action(upload);

  defineCommand(program, 'upload:url', 'Have the service fetch a public https URL into the media library', 'sps upload:url https://example.com/photo.jpg')
    .argument('<url>', 'public https URL of an image or MP4 video')
    .action(async (url: string) => {
      notePending(await requestAndPrint({ method: 'POST', path: '/upload-from-url', body: { url } }));
    });

  defineCommand(program, 'media:get', 'Show a media record with its status (pending, ready or failed)', 'sps media:get <mediaId>')
    .argument('<id>', 'media id')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'GET', path: `/media/${segment(id)}` });
    });
}

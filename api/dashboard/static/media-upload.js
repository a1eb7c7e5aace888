// The media library's upload island (api/dashboard/pages/media-pages.ts): each chosen file goes to
// /media/upload with the session cookie and the page's CSRF token in a header (the body is the
// file), with a progress bar; once every file is answered the page is read again to show them.
// Without this script the zone stays hidden.
/* global pageWord -- from page-words.js, loaded before this script */
'use strict';

(() => {
  const form = document.getElementById('media-upload');
  const input = document.getElementById('media-upload-file');
  const list = document.getElementById('media-uploads');
  const token = form === null ? null : form.querySelector('input[name="_csrf"]');
  if (form === null || input === null || list === null || token === null) return;
  form.hidden = false;
  let running = 0;
  let failed = 0;

  const settle = () => {
    running -= 1;
    // Failures stay listed with their reason; a clean batch shows the library with the new files.
    if (running === 0 && failed === 0) window.location.reload();
  };

  const upload = (file) => {
    const item = document.createElement('li');
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', pageWord('media.uploadOf', { name: file.name }));
    item.append(`${file.name} `, bar);
    list.append(item);
    running += 1;
    const request = new XMLHttpRequest();
    request.open('POST', '/media/upload');
    request.setRequestHeader('X-CSRF-Token', token.value);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) bar.value = Math.round((event.loaded * 100) / event.total);
    });
    request.addEventListener('load', () => {
      if (request.status === 201 || request.status === 202) {
        const done = request.status === 202 ? 'media.uploadedProcessing' : 'media.uploaded';
        item.textContent = pageWord(done, { name: file.name });
      } else {
        // Our error pages say why in their alert; show those words beside the file.
        const page = new DOMParser().parseFromString(request.responseText, 'text/html');
        const reason = page.querySelector('[role="alert"]');
        const why = reason === null
          ? pageWord('media.uploadFailedStatus', { status: request.status })
          : reason.textContent;
        item.textContent = `${file.name}: ${why}`;
        item.className = 'problem';
        failed += 1;
      }
      settle();
    });
    request.addEventListener('error', () => {
      item.textContent = pageWord('media.uploadInterrupted', { name: file.name });
      item.className = 'problem';
      failed += 1;
      settle();
    });
    const body = new FormData();
    body.append('file', file);
    request.send(body);
  };

  input.addEventListener('change', () => {
    if (input.files === null) return;
    failed = 0;
    for (const file of input.files) upload(file);
    input.value = '';
  });
})();

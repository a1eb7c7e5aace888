// The composer's upload island. Files chosen or dropped on the media zone go one by one to
// /compose/upload with the session cookie and the form's CSRF token (a header: the body is the
// file), each with a progress bar; the answer is the file's library tile, added to the grid and
// attached to part 1, and the live check runs again so the previews show it. Without this
// script the zone stays hidden and the library's files are picked as before. Its words come from
// the page (pageWord, static/page-words.js), in the reader's language.
/* global pageWord -- from page-words.js, loaded before this script */
(() => {
  const reveal = () => {
    const zone = document.getElementById('media-drop');
    if (zone !== null) zone.hidden = false;
  };

  const upload = (file) => {
    const form = document.getElementById('composer');
    const list = document.getElementById('uploads');
    const token = form === null ? null : form.querySelector('input[name="_csrf"]');
    if (form === null || list === null || token === null) return;
    const item = document.createElement('li');
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', pageWord('composer.uploadOf', { name: file.name }));
    item.append(`${file.name} `, bar);
    list.append(item);
    const parts = form.querySelectorAll('textarea[name="part"]').length;
    const request = new XMLHttpRequest();
    request.open('POST', `/compose/upload?parts=${parts}`);
    request.setRequestHeader('X-CSRF-Token', token.value);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) bar.value = Math.round((event.loaded * 100) / event.total);
    });
    request.addEventListener('load', () => {
      if (request.status === 201 || request.status === 202) {
        const uploaded = request.status === 202 ? 'composer.uploadedProcessing' : 'composer.uploaded';
        item.textContent = pageWord(uploaded, { name: file.name });
        const grid = document.getElementById('media-grid');
        if (grid !== null) grid.insertAdjacentHTML('afterbegin', request.responseText);
        const empty = document.getElementById('media-empty');
        if (empty !== null) empty.remove();
        form.dispatchEvent(new Event('input', { bubbles: true }));
        return;
      }
      // Our error pages say why in their alert; show those words beside the file.
      const page = new DOMParser().parseFromString(request.responseText, 'text/html');
      const reason = page.querySelector('[role="alert"]');
      const why = reason === null ? pageWord('composer.uploadFailed', { status: request.status }) : reason.textContent;
      item.textContent = pageWord('composer.fileProblem', { name: file.name, problem: why });
      item.className = 'problem';
    });
    request.addEventListener('error', () => {
      item.textContent = pageWord('composer.uploadInterrupted', { name: file.name });
      item.className = 'problem';
    });
    const body = new FormData();
    body.append('file', file);
    request.send(body);
  };

  document.addEventListener('DOMContentLoaded', reveal);
  // htmx replaces the composer when a part is added or removed: the new zone is revealed too.
  document.addEventListener('htmx:afterSettle', reveal);
  document.addEventListener('change', (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.id !== 'media-file' || input.files === null) return;
    for (const file of input.files) upload(file);
    input.value = '';
  });
  document.addEventListener('dragover', (event) => {
    const zone = event.target instanceof Element ? event.target.closest('#media-drop') : null;
    if (zone === null) return;
    event.preventDefault();
    zone.classList.add('dragging');
  });
  document.addEventListener('dragleave', (event) => {
    const zone = event.target instanceof Element ? event.target.closest('#media-drop') : null;
    if (zone !== null) zone.classList.remove('dragging');
  });
  document.addEventListener('drop', (event) => {
    const zone = event.target instanceof Element ? event.target.closest('#media-drop') : null;
    if (zone === null || event.dataTransfer === null) return;
    event.preventDefault();
    zone.classList.remove('dragging');
    for (const file of event.dataTransfer.files) upload(file);
  });
})();

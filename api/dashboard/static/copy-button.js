// Every page's copy buttons: a button with data-copy="<id>" copies that element's text (a secret,
// a key) and then says so in the page's language.
/* global pageWord -- from page-words.js, loaded before this script */
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (button === null) return;
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  if (source === null || !navigator.clipboard) return;
  void navigator.clipboard.writeText(source.textContent || '').then(() => {
    button.textContent = pageWord('layout.copied');
  });
});

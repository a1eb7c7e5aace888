// The page's messages for its scripts, in the reader's language: the page-words data block that
// api/dashboard/layout.ts writes from the catalog. Loaded first, so every island can say things.
'use strict';

/** The message `key` with its `{name}` placeholders filled from `values`. */
window.pageWord = (key, values) => {
  const block = document.getElementById('page-words');
  const words = block === null ? {} : JSON.parse(block.textContent || '{}');
  const message = typeof words[key] === 'string' ? words[key] : key;
  return message.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (whole, name) =>
    (values && name in values ? String(values[name]) : whole));
};

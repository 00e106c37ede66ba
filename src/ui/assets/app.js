document.addEventListener('click', (event) => {
  var button = event.target.closest && event.target.closest('[data-copy]');
  if (!button || !navigator.clipboard) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    var label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
});
var valueForm = document.querySelector('form[data-live-value]');
var valueOutput = document.getElementById('live-value');
if (valueForm && valueOutput && window.fetch) {
  var valueTimer;
  valueForm.addEventListener('input', (event) => {
    if (!event.target.name || !/^(p\d+_|currency$|vatMode$)/.test(event.target.name)) return;
    clearTimeout(valueTimer);
    valueTimer = setTimeout(() => {
      fetch(valueForm.getAttribute('data-live-value'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        // The text fields only: a chosen PDF has no part in the value.
        body: new URLSearchParams(
          Array.from(new FormData(valueForm)).filter((entry) => typeof entry[1] === 'string'),
        ),
      })
        .then((response) => (response.ok ? response.json() : null))
        .then((result) => {
          if (result) valueOutput.textContent = result.text;
        })
        .catch(() => {});
    }, 300);
  });
}
// A file dragged over the PDF field: show where it will land (the input takes the drop).
document.querySelectorAll('.file-drop').forEach((zone) => {
  ['dragenter', 'dragover'].forEach((type) => {
    zone.addEventListener(type, () => zone.classList.add('dragging'));
  });
  ['dragleave', 'drop'].forEach((type) => {
    zone.addEventListener(type, () => zone.classList.remove('dragging'));
  });
});
// A page that updates itself (a bulk send's progress; web/layout.ts): without JavaScript it
// reloads; here its main part is fetched again every few seconds and put in place instead,
// until a page comes back that no longer updates itself (the send finished).
var updating = document.querySelector('main[data-refresh]');
if (updating && window.fetch && window.DOMParser) {
  var updateTimer = setInterval(
    () => {
      fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then((response) => (response.ok ? response.text() : null))
        .then((text) => {
          var next = text && new DOMParser().parseFromString(text, 'text/html').querySelector('main');
          if (!next) return;
          updating.innerHTML = next.innerHTML;
          if (!next.hasAttribute('data-refresh')) clearInterval(updateTimer);
        })
        .catch(() => {});
    },
    Number(updating.getAttribute('data-refresh')) * 1000,
  );
}

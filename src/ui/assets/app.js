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
        body: new URLSearchParams(new FormData(valueForm)),
      })
        .then((response) => (response.ok ? response.json() : null))
        .then((result) => {
          if (result) valueOutput.textContent = result.text;
        })
        .catch(() => {});
    }, 300);
  });
}

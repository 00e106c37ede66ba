// The signing page's one script, inline and allowed by its hash (ui/security.ts): the
// typed signature's preview follows the name as it is typed, a signature pad lets the
// signer draw instead (mouse, finger or pen), a guide leads them through their fields, a
// code asked for carries what the form holds, and a tap on a page shows it larger in place.
// Without it the page works as it is: the signature is the typed name, the fields are
// ordinary inputs, a page's link opens its full-size image.
var signForm = document.querySelector('form[data-signature]');

function previewTypedName(form) {
  var name = form.querySelector('#sign-full-name');
  var preview = document.getElementById('signature-preview');
  if (!name || !preview) return;
  var placeholder = preview.textContent;
  name.addEventListener('input', () => {
    preview.textContent = name.value.trim() || placeholder;
  });
}

/** Strokes follow the pointer on the canvas; returns whether anything was drawn. */
function drawOn(canvas) {
  var context = canvas.getContext('2d');
  context.lineWidth = 3;
  context.lineCap = 'round';
  context.lineJoin = 'round';
  context.strokeStyle = '#1a2f73';
  var state = { drawing: false, drawn: false };
  var point = (event) => {
    var box = canvas.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) * canvas.width) / box.width,
      y: ((event.clientY - box.top) * canvas.height) / box.height,
    };
  };
  canvas.addEventListener('pointerdown', (event) => {
    state.drawing = true;
    canvas.setPointerCapture(event.pointerId);
    var at = point(event);
    context.beginPath();
    context.moveTo(at.x, at.y);
    event.preventDefault();
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!state.drawing) return;
    var at = point(event);
    context.lineTo(at.x, at.y);
    context.stroke();
    state.drawn = true;
  });
  ['pointerup', 'pointercancel', 'pointerleave'].forEach((type) => {
    canvas.addEventListener(type, () => {
      state.drawing = false;
    });
  });
  state.clear = () => {
    context.clearRect(0, 0, canvas.width, canvas.height);
    state.drawn = false;
  };
  // A drawing kept after a refusal (a PNG data URL): drawn again, decoded from its bytes
  // (the page's policy loads no data: image).
  state.restore = (dataUrl) => {
    var bytes = Uint8Array.from(atob(dataUrl.split(',')[1]), (c) => c.charCodeAt(0));
    return createImageBitmap(new Blob([bytes], { type: 'image/png' })).then((bitmap) => {
      context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      state.drawn = true;
    });
  };
  return state;
}

function signaturePad(form) {
  var choice = form.querySelector('[data-draw-choice]');
  var pad = form.querySelector('[data-pad]');
  var canvas = pad && pad.querySelector('canvas');
  var image = form.querySelector('input[name="signatureImage"]');
  var problem = pad && pad.querySelector('[data-pad-problem]');
  var preview = document.getElementById('signature-preview');
  if (!choice || !pad || !canvas || !image || !canvas.getContext) return;
  choice.hidden = false;
  var strokes = drawOn(canvas);
  var kind = () => {
    var checked = form.querySelector('input[name="signatureKind"]:checked');
    return checked ? checked.value : 'typed';
  };
  var show = () => {
    pad.hidden = kind() !== 'drawn';
    if (preview) preview.hidden = kind() === 'drawn';
  };
  form.querySelectorAll('input[name="signatureKind"]').forEach((radio) => {
    radio.addEventListener('change', show);
  });
  canvas.addEventListener('pointermove', () => {
    if (strokes.drawn && problem) problem.hidden = true;
  });
  var kept = image.value;
  if (kept && window.createImageBitmap) strokes.restore(kept).catch(() => {});
  pad.querySelector('[data-clear]').addEventListener('click', () => {
    strokes.clear();
    kept = '';
  });
  // The drawing as the form sends it: what is on the pad, or the kept one not yet redrawn.
  var drawing = () => {
    if (kind() !== 'drawn') return '';
    if (strokes.drawn) return canvas.toDataURL('image/png');
    return kept;
  };
  form.addEventListener('submit', (event) => {
    image.value = drawing();
    if (kind() === 'drawn' && !image.value) {
      event.preventDefault();
      if (problem) problem.hidden = false;
      canvas.focus();
    }
  });
  show();
  return drawing;
}

/**
 * Asking for a code keeps the sign form: its values go with the request (as hidden inputs,
 * replacing those the page carried from an earlier post), and the page comes back with them.
 */
function carryIntoCodeRequest(form, drawing) {
  var request = document.querySelector('form[data-code-request]');
  if (!request) return;
  request.addEventListener('submit', () => {
    var carried = request.querySelector('[data-carried]');
    if (carried) carried.remove();
    carried = document.createElement('div');
    carried.setAttribute('data-carried', '');
    var data = new FormData(form);
    data.delete('code');
    data.delete('signatureImage');
    var image = drawing ? drawing() : '';
    if (image) data.set('signatureImage', image);
    data.forEach((value, name) => {
      var input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      carried.append(input);
    });
    request.prepend(carried);
  });
}

/**
 * The sentences the script writes, in the page's language: the page's <main> carries them
 * (data-t-*, signing-page.ts `scriptTexts`), so the script holds no sentence of its own.
 */
function pageTexts() {
  var data = document.querySelector('main')?.dataset ?? {};
  var left = [];
  try {
    left = JSON.parse(data.tLeft || '[]');
  } catch {}
  return {
    done: data.tDone || '',
    go: data.tGo || '',
    next: data.tNext || '',
    close: data.tClose || '',
    page: data.tPage || '',
    left,
  };
}

/**
 * The signer's fields: a bar that counts what is left to fill and leads to the next one
 * (its input focused, its place on the page marked); a click on one of their fields on a
 * page goes to its input. Without the script the inputs are the form's, each naming its page.
 */
function fieldGuide(form) {
  var text = pageTexts();
  // Beside their pages, or in the form: every input of the form's fields.
  var inputs = Array.from(document.querySelectorAll('[data-field-input] input')).filter(
    (i) => i.form === form,
  );
  if (inputs.length === 0) return;
  var idOf = (input) => input.closest('[data-field-input]').getAttribute('data-field-input');
  var empty = (input) => (input.type === 'checkbox' ? !input.checked : input.value.trim() === '');
  var bar = document.createElement('div');
  bar.className = 'field-guide';
  bar.setAttribute('role', 'status');
  var count = document.createElement('span');
  var next = document.createElement('button');
  next.type = 'button';
  next.className = 'button button-primary button-small';
  bar.append(count, next);
  (form.closest('main') || document.body).append(bar);
  var mark = (input) => {
    document.querySelectorAll('.field-current').forEach((box) => {
      box.classList.remove('field-current');
    });
    var box = document.querySelector(`rect[data-field="${idOf(input)}"]`);
    if (box) box.classList.add('field-current');
  };
  var update = () => {
    var left = inputs.filter(empty).length;
    count.textContent = left === 0 ? text.done : (text.left[left - 1] ?? `${left}/${inputs.length}`);
    next.textContent = left === 0 ? text.go : text.next;
  };
  next.addEventListener('click', () => {
    var target = inputs.find(empty);
    if (!target) {
      var name = form.querySelector('#sign-full-name');
      if (name) name.focus();
      return;
    }
    mark(target);
    target.focus();
    target.scrollIntoView({ block: 'center' });
  });
  inputs.forEach((input) => {
    input.addEventListener('input', update);
    input.addEventListener('change', update);
    input.addEventListener('focus', () => mark(input));
  });
  document.querySelectorAll('rect.field-mine[data-field]').forEach((box) => {
    box.addEventListener('click', () => {
      var input = inputs.find((i) => idOf(i) === box.getAttribute('data-field'));
      if (!input) return;
      mark(input);
      input.focus();
      input.scrollIntoView({ block: 'center' });
    });
  });
  update();
}

/**
 * A tap on a page shows it larger, in a dialog over the page (scrolls both ways; Escape or
 * Close ends it); the link itself, without the script, opens the full-size image.
 */
function largerView() {
  var links = document.querySelectorAll('a[data-page-link]');
  if (links.length === 0 || !window.HTMLDialogElement) return;
  var viewer = null;
  // Made on the first tap, so the page holds no image without a source until then.
  var make = () => {
    var dialog = document.createElement('dialog');
    dialog.className = 'page-viewer';
    var bar = document.createElement('div');
    bar.className = 'page-viewer-bar';
    var title = document.createElement('span');
    title.id = 'page-viewer-title';
    var close = document.createElement('button');
    close.type = 'button';
    close.className = 'button button-secondary button-small';
    close.textContent = pageTexts().close;
    bar.append(title, close);
    var image = document.createElement('img');
    dialog.append(bar, image);
    dialog.setAttribute('aria-labelledby', title.id);
    document.body.append(dialog);
    close.addEventListener('click', () => dialog.close());
    // A tap on the dark edge outside the image closes it too.
    dialog.addEventListener('click', (event) => {
      if (event.target === dialog) dialog.close();
    });
    return { dialog, title, close, image };
  };
  links.forEach((link) => {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      viewer = viewer || make();
      var page = link.querySelector('img');
      viewer.title.textContent = page ? page.alt : pageTexts().page;
      viewer.image.alt = page ? page.alt : '';
      viewer.image.src = link.href;
      viewer.dialog.showModal();
      viewer.close.focus();
    });
  });
}

document.documentElement.classList.add('js');
if (signForm) {
  previewTypedName(signForm);
  var drawing = signaturePad(signForm);
  carryIntoCodeRequest(signForm, drawing);
  fieldGuide(signForm);
}
largerView();

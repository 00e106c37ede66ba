// The signing page's one script, inline and allowed by its hash (ui/security.ts): the
// typed signature's preview follows the name as it is typed, a signature pad lets the
// signer draw instead (mouse, finger or pen), and a guide leads them through their fields.
// Without it the page works as it is: the signature is the typed name, the fields are
// ordinary inputs.
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
  pad.querySelector('[data-clear]').addEventListener('click', () => strokes.clear());
  form.addEventListener('submit', (event) => {
    image.value = '';
    if (kind() !== 'drawn') return;
    if (!strokes.drawn) {
      event.preventDefault();
      if (problem) problem.hidden = false;
      canvas.focus();
      return;
    }
    image.value = canvas.toDataURL('image/png');
  });
  show();
}

/**
 * The signer's fields: a bar that counts what is left to fill and leads to the next one
 * (its input focused, its place on the page marked); a click on one of their fields on a
 * page goes to its input. Without the script the inputs are the form's, each naming its page.
 */
function fieldGuide(form) {
  var set = form.querySelector('[data-fields]');
  if (!set) return;
  var inputs = Array.from(set.querySelectorAll('[data-field-input] input'));
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
    count.textContent = left === 0 ? 'Every field is filled in.' : `${left} of ${inputs.length} fields left`;
    next.textContent = left === 0 ? 'Go to Sign' : 'Next field';
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

if (signForm) {
  previewTypedName(signForm);
  signaturePad(signForm);
  fieldGuide(signForm);
}

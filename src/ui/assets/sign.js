// The signing page's one script, inline and allowed by its hash (ui/security.ts): the
// typed signature's preview follows the name as it is typed, and a signature pad lets the
// signer draw instead (mouse, finger or pen). Without it the page works as it is: the
// signature is the typed name.
(() => {
  var form = document.querySelector('form[data-signature]');
  if (!form) return;
  var name = document.getElementById('sign-full-name');
  var preview = document.getElementById('signature-preview');
  if (name && preview) {
    var placeholder = preview.textContent;
    name.addEventListener('input', () => {
      preview.textContent = name.value.trim() || placeholder;
    });
  }
  var choice = form.querySelector('[data-draw-choice]');
  var pad = form.querySelector('[data-pad]');
  var canvas = pad && pad.querySelector('canvas');
  var image = form.querySelector('input[name="signatureImage"]');
  var problem = pad && pad.querySelector('[data-pad-problem]');
  if (!choice || !pad || !canvas || !image || !canvas.getContext) return;
  choice.hidden = false;
  var context = canvas.getContext('2d');
  context.lineWidth = 3;
  context.lineCap = 'round';
  context.lineJoin = 'round';
  context.strokeStyle = '#1a2f73';
  var drawing = false;
  var drawn = false;
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
  var point = (event) => {
    var box = canvas.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) * canvas.width) / box.width,
      y: ((event.clientY - box.top) * canvas.height) / box.height,
    };
  };
  canvas.addEventListener('pointerdown', (event) => {
    drawing = true;
    canvas.setPointerCapture(event.pointerId);
    var at = point(event);
    context.beginPath();
    context.moveTo(at.x, at.y);
    context.lineTo(at.x + 0.1, at.y + 0.1);
    context.stroke();
    event.preventDefault();
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!drawing) return;
    var at = point(event);
    context.lineTo(at.x, at.y);
    context.stroke();
    drawn = true;
    if (problem) problem.hidden = true;
  });
  ['pointerup', 'pointercancel', 'pointerleave'].forEach((type) => {
    canvas.addEventListener(type, () => {
      drawing = false;
    });
  });
  pad.querySelector('[data-clear]').addEventListener('click', () => {
    context.clearRect(0, 0, canvas.width, canvas.height);
    drawn = false;
  });
  form.addEventListener('submit', (event) => {
    if (kind() !== 'drawn') {
      image.value = '';
      return;
    }
    if (!drawn) {
      event.preventDefault();
      if (problem) problem.hidden = false;
      canvas.focus();
      return;
    }
    image.value = canvas.toDataURL('image/png');
  });
  show();
})();

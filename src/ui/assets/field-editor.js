// The field editor's pointer path (/documents/{id}/fields; the page works without it):
// draw a field on a page (or tap one in: a field of the default size), drag a field to
// move it, drag its corner to resize it. Each gesture fills in the same form a keyboard
// user fills in, and sends it; the server checks it as it checks theirs.
// Every form of the editor (add, save, delete; by gesture or by keyboard) is sent with
// fetch and `Accept: application/json`: the editor is changed in place (the new field list,
// each page's shapes), nothing reloads, and the add form keeps its signer and type. A
// refusal is shown beside its form and the shape goes back. Any answer that is not the
// editor's JSON (a log-in page, an expired form) sends the form the ordinary way.
var fieldEditor = document.querySelector('[data-field-editor="on"]');
var fieldMinSide = 6;
var fieldTapSize = { width: 160, height: 36 };

var clampTo = (n, low, high) => Math.min(high, Math.max(low, n));
var toHalfPoint = (n) => Math.round(n * 2) / 2;

/** The pointer's place on a page, in the page's points, y from the top. */
function pointOnPage(frame, event) {
  var box = frame.getBoundingClientRect();
  var width = Number(frame.dataset.width);
  var height = Number(frame.dataset.height);
  return {
    x: clampTo(((event.clientX - box.left) / box.width) * width, 0, width),
    top: clampTo(((event.clientY - box.top) / box.height) * height, 0, height),
  };
}

/** What puts a gesture's shape back if its change is refused (the form being sent's). */
var undoOf = new WeakMap();

/** Fills `form` with a rectangle (points, y from the top of the page) and sends it. */
function sendField(form, frame, rect, undo) {
  var height = Number(frame.dataset.height);
  var values = {
    back: `page-${frame.dataset.page}`,
    page: frame.dataset.page,
    x: toHalfPoint(rect.x),
    y: toHalfPoint(height - rect.top - rect.height),
    width: toHalfPoint(rect.width),
    height: toHalfPoint(rect.height),
  };
  Object.keys(values).forEach((name) => {
    var input = form.elements.namedItem(name);
    if (input) input.value = String(values[name]);
  });
  undoOf.set(form, undo);
  form.requestSubmit();
}

/** The sentence of a refusal at the end of its form (replacing an earlier one). */
function showRefusal(form, sentence) {
  var shown = form.querySelector('[data-refusal]');
  if (!shown) {
    shown = document.createElement('p');
    shown.className = 'field-error';
    shown.setAttribute('role', 'alert');
    shown.setAttribute('data-refusal', '');
    form.querySelector('.actions').before(shown);
  }
  shown.textContent = sentence;
}

/**
 * After a field is added: the add form as the server renders it after one (its signer, type
 * and page kept, the rest back to how the page came), ready for the next field.
 */
function resetAddForm(form) {
  Array.from(form.elements).forEach((input) => {
    if (['recipient', 'type', 'page', '_csrf', 'back'].includes(input.name)) return;
    if (input.tagName === 'SELECT') {
      Array.from(input.options).forEach((option) => {
        option.selected = option.defaultSelected;
      });
    } else if (input.tagName === 'INPUT') input.value = input.defaultValue;
  });
}

/** The editor as the server has it now: the field list and each page's shapes. */
function showParts(parts) {
  var active = document.activeElement;
  var activeId = active && active.closest('[data-field-list]') ? active.id : null;
  var list = fieldEditor.querySelector('[data-field-list]');
  var template = document.createElement('template');
  template.innerHTML = parts.list;
  list.replaceWith(template.content);
  Object.keys(parts.layers).forEach((page) => {
    var layer = fieldEditor.querySelector(`[data-layer="${page}"]`);
    if (layer) layer.innerHTML = parts.layers[page];
  });
  if (activeId) {
    var again = document.getElementById(activeId);
    var heading = document.getElementById('list-title');
    if (again) again.focus();
    else if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    }
  }
}

/** Sends `form` with fetch; the editor changes in place, or the form goes the usual way. */
function sendInPlace(form) {
  var undo = undoOf.get(form);
  undoOf.delete(form);
  form.setAttribute('aria-busy', 'true');
  fetch(form.action, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(new FormData(form)),
  })
    .then((response) => {
      var type = response.headers.get('content-type') || '';
      if (!/application\/json/.test(type)) throw new Error('not the editor');
      return response.json().then((answer) => ({ ok: response.ok, answer: answer }));
    })
    .then((result) => {
      form.removeAttribute('aria-busy');
      if (result.ok) {
        var old = form.querySelector('[data-refusal]');
        if (old) old.remove();
        showParts(result.answer);
        if (form.hasAttribute('data-add-field')) resetAddForm(form);
        fieldEditor.dispatchEvent(new CustomEvent('fields-changed'));
        return;
      }
      if (undo) undo();
      showRefusal(form, result.answer.error);
    })
    .catch(() => {
      form.removeAttribute('aria-busy');
      form.submit();
    });
}

function rectOf(shape) {
  var box = shape.querySelector('.field-box');
  return {
    x: Number(box.getAttribute('x')),
    top: Number(box.getAttribute('y')),
    width: Number(box.getAttribute('width')),
    height: Number(box.getAttribute('height')),
  };
}

function drawRect(shape, rect) {
  var box = shape.querySelector('.field-box');
  box.setAttribute('x', rect.x);
  box.setAttribute('y', rect.top);
  box.setAttribute('width', rect.width);
  box.setAttribute('height', rect.height);
}

/** What a pointer pressed on a page starts: moving or resizing a field, or drawing one. */
function startGesture(frame, event) {
  var start = pointOnPage(frame, event);
  var shape = event.target.closest('[data-field]');
  if (shape) {
    var form = fieldEditor.querySelector(`[data-field-form="${shape.dataset.field}"]`);
    if (!form) return null;
    var kind = event.target.classList.contains('field-handle') ? 'resize' : 'move';
    return { kind: kind, shape: shape, form: form, start: start, from: rectOf(shape) };
  }
  var ghost = document.createElementNS('http://www.w3.org/2000/svg', 'g');
  ghost.setAttribute('class', 'field-shape field-new');
  ghost
    .appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'rect'))
    .setAttribute('class', 'field-box');
  frame.querySelector('svg').appendChild(ghost);
  drawRect(ghost, { x: start.x, top: start.top, width: 0, height: 0 });
  return {
    kind: 'draw',
    shape: ghost,
    form: fieldEditor.querySelector('[data-add-field]'),
    start: start,
    from: null,
  };
}

/** The rectangle as the pointer has it now, kept on the page. */
function followGesture(frame, gesture, event) {
  var width = Number(frame.dataset.width);
  var height = Number(frame.dataset.height);
  var at = pointOnPage(frame, event);
  var dx = at.x - gesture.start.x;
  var dy = at.top - gesture.start.top;
  var from = gesture.from;
  if (gesture.kind === 'move') {
    return {
      x: clampTo(from.x + dx, 0, width - from.width),
      top: clampTo(from.top + dy, 0, height - from.height),
      width: from.width,
      height: from.height,
    };
  }
  if (gesture.kind === 'resize') {
    return {
      x: from.x,
      top: from.top,
      width: clampTo(from.width + dx, fieldMinSide, width - from.x),
      height: clampTo(from.height + dy, fieldMinSide, height - from.top),
    };
  }
  return {
    x: Math.min(at.x, gesture.start.x),
    top: Math.min(at.top, gesture.start.top),
    width: Math.abs(dx),
    height: Math.abs(dy),
  };
}

/** The pointer let go: the change is sent (a tap draws a field of the usual size). */
function finishGesture(frame, gesture, cancelled) {
  if (cancelled) {
    if (gesture.kind === 'draw') gesture.shape.remove();
    else drawRect(gesture.shape, gesture.from);
    return;
  }
  var rect = rectOf(gesture.shape);
  if (gesture.kind === 'draw' && (rect.width < fieldMinSide || rect.height < fieldMinSide)) {
    var width = Number(frame.dataset.width);
    var height = Number(frame.dataset.height);
    rect = {
      x: clampTo(gesture.start.x, 0, width - fieldTapSize.width),
      top: clampTo(gesture.start.top, 0, height - fieldTapSize.height),
      width: Math.min(fieldTapSize.width, width),
      height: Math.min(fieldTapSize.height, height),
    };
  }
  var from = gesture.from;
  var changed =
    !from ||
    rect.x !== from.x ||
    rect.top !== from.top ||
    rect.width !== from.width ||
    rect.height !== from.height;
  if (changed) {
    sendField(gesture.form, frame, rect, () => {
      if (gesture.kind === 'draw') gesture.shape.remove();
      else drawRect(gesture.shape, from);
    });
  }
}

if (fieldEditor && window.fetch) {
  fieldEditor.addEventListener('submit', (event) => {
    var form = event.target;
    if (form.getAttribute('method') !== 'post') return;
    event.preventDefault();
    // One change of a form at a time: a second press waits for the first's answer.
    if (!form.getAttribute('aria-busy')) sendInPlace(form);
  });
}

if (fieldEditor) {
  fieldEditor.querySelectorAll('.page-frame').forEach((frame) => {
    var gesture = null;
    frame.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      gesture = startGesture(frame, event);
      if (!gesture) return;
      frame.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    frame.addEventListener('pointermove', (event) => {
      if (gesture) drawRect(gesture.shape, followGesture(frame, gesture, event));
    });
    ['pointerup', 'pointercancel'].forEach((type) => {
      frame.addEventListener(type, (event) => {
        if (!gesture) return;
        var done = gesture;
        gesture = null;
        finishGesture(frame, done, event.type === 'pointercancel');
      });
    });
  });
}

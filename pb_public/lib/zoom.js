// The product's image, larger: its thumbnail is a button that opens it in
// a dialog at up to the screen's size; Escape or a click closes it, and
// the focus goes back to the thumbnail.
import { $, h, replace } from './dom.js';

/** zoomable wraps a thumbnail (img) of the product named name in a button that zooms it. */
export function zoomable(img, name) {
  return h('button', {
    type: 'button', class: 'zoom', title: 'Zoom the image', 'aria-label': `Zoom the image of ${name || 'the product'}`,
    onclick: () => open(img.src, name),
  }, img);
}

function open(src, name) {
  replace($('#zoom-frame'), h('img', {
    id: 'zoom-image', src, referrerpolicy: 'no-referrer', alt: name ? `Image of ${name}` : 'Image of the product',
  }));
  $('#zoom').showModal();
  $('#zoom-close').focus();
}

/** initZoom wires the dialog: a click anywhere on it closes it, and the image goes with it. */
export function initZoom() {
  const dialog = $('#zoom');
  dialog.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => replace($('#zoom-frame')));
}

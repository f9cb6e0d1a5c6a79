// The product's image, larger: its thumbnail is a button that opens it in
// a dialog at up to the screen's size; Escape or a click closes it, and
// the focus goes back to the thumbnail.
import { $, h } from './dom.js';

/** zoomable wraps a thumbnail (img) of the product named name in a button that zooms it. */
export function zoomable(img, name) {
  return h('button', {
    type: 'button', class: 'zoom', title: 'Zoom the image', 'aria-label': `Zoom the image of ${name || 'the product'}`,
    onclick: () => open(img.src, name),
  }, img);
}

function open(src, name) {
  const dialog = $('#zoom');
  const big = $('#zoom-image');
  big.src = src;
  big.alt = name ? `Image of ${name}` : 'Image of the product';
  dialog.showModal();
  $('#zoom-close').focus();
}

/** initZoom wires the dialog: its Close, and a click anywhere on it. */
export function initZoom() {
  const dialog = $('#zoom');
  dialog.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => { $('#zoom-image').removeAttribute('src'); });
}

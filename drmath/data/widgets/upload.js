// UploadButton (drmath.dashboard.upload): a button that opens the file chooser and sends one file to the
// kernel, checked for size first. A file over `max_bytes` is never read: only its name and size go, and the
// kernel shows its refusal, so a big file cannot end the session by a message over the server's limit.
export default {
  render({ model, el }) {
    el.classList.add('drmath-upload');
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = false;
    input.hidden = true;
    input.className = 'drmath-upload-input';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jupyter-button widget-button drmath-upload-button';
    const icon = document.createElement('i');
    icon.className = 'fa fa-upload';
    const label = document.createElement('span');
    button.append(icon, label);
    el.append(button, input);
    const update = () => {
      input.accept = model.get('accept');
      label.textContent = model.get('description');
      button.disabled = model.get('disabled');
    };
    button.addEventListener('click', () => input.click());
    input.addEventListener('change', async () => {
      const file = input.files && input.files[0];
      input.value = '';  // the same file may be chosen again
      if (!file) return;
      const head = { name: file.name, size: file.size };
      if (file.size > model.get('max_bytes')) {
        model.send({ event: 'refused', ...head });
        return;
      }
      button.disabled = true;
      try {
        const bytes = await file.arrayBuffer();
        model.send({ event: 'file', ...head }, undefined, [bytes]);
      } catch (e) {
        model.send({ event: 'unreadable', ...head });
      } finally {
        button.disabled = model.get('disabled');
      }
    });
    update();
    model.on('change', update);
    return () => model.off('change', update);
  }
};

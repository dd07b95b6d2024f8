// The demo page's controls: each one sets an attribute, property or custom property of <kb-chat>.
const chat = document.querySelector('kb-chat');
const ARABIC = {
  heading: 'اسأل وثائق kb-chat',
  greeting: 'مرحبا! اسألني عن kb-chat.',
  placeholder: 'اكتب سؤالك…',
  send: 'أرسل',
  openChat: 'افتح الدردشة',
  closeChat: 'أغلق الدردشة',
  history: 'السجل',
  newChat: 'محادثة جديدة',
  sources: 'المصادر',
  copy: 'نسخ',
  retry: 'أعد المحاولة',
  inputLabel: 'سؤالك',
  helpful: 'مفيد',
  notHelpful: 'غير مفيد',
};
const english = { heading: chat.getAttribute('heading'), greeting: chat.getAttribute('greeting') };

for (const input of document.querySelectorAll('.controls input')) {
  input.addEventListener('input', () => {
    const { name, value } = input;
    if (name === 'theme' || name === 'position') chat.setAttribute(name, value);
    if (name === 'accent') chat.style.setProperty('--kb-accent', value);
    if (name === 'lang') {
      const rtl = value === 'ar';
      document.documentElement.lang = value;
      chat.setAttribute('dir', rtl ? 'rtl' : 'ltr');
      chat.strings = rtl ? ARABIC : {};
      chat.heading = rtl ? ARABIC.heading : english.heading;
      chat.greeting = rtl ? ARABIC.greeting : english.greeting;
    }
  });
}

const log = document.getElementById('events');
for (const type of ['kb-open', 'kb-close', 'kb-question', 'kb-answer', 'kb-refusal', 'kb-feedback', 'kb-error']) {
  chat.addEventListener(type, (event) => {
    const item = document.createElement('li');
    const detail = event.detail
      ? JSON.stringify(event.detail, (key, value) => (key === 'citations' ? `${value.length} citations` : value))
      : '';
    item.textContent = `${type} ${detail.length > 160 ? `${detail.slice(0, 160)}…` : detail}`;
    log.prepend(item);
  });
}

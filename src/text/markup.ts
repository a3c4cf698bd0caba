/**
 * An emoji with everything that modifies it, removed whole so the voice is left nothing to read:
 * keycaps (1️⃣), pictographs, skin tones (🏻), ZWJ sequences (👨‍👩‍👧), variation selectors (❤️),
 * flags (🇸🇦, and the tag sequences of subdivision flags).
 */
const EMOJI = /(?:[0-9#*]\uFE0F?\u20E3|[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u200D\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}])+/gu;

/** Markdown, emoji and links: what a listener cannot hear. */
export function stripMarkup(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\((?:https?:\/\/)?[^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+|www\.\S+/g, 'الرابط المرسل')
    .replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, (e) => e.replace('@', ' at ').replace(/\./g, ' dot '))
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/^\s*\d+[.)]\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(\S.*?)\1/g, '$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/\|/g, ' ')
    .replace(EMOJI, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
}

/** Arabic-Indic and Persian digits and separators as Western ones. */
export function westernDigits(s: string): string {
  return s
    .replace(/[٠-٩]/g, (d) => String(d.charCodeAt(0) - 0x660))
    .replace(/[۰-۹]/g, (d) => String(d.charCodeAt(0) - 0x6f0))
    .replace(/٫/g, '.')
    .replace(/٬/g, ',');
}

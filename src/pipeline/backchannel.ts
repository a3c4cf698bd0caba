/**
 * Backchannels: the short "uh-huh", "yes", "OK" a listener says while the other goes on, to show
 * they follow, not to take the turn. Arabic callers say them often over an agent reading figures
 * (660 in 168 minutes of Egyptian telephone calls in Ward & Al Bayyari, "A Prosodic Feature that
 * Invites Back-Channels in Egyptian Arabic", Perspectives on Arabic Linguistics XX, 2007: most
 * often "آه" and "mmm"; their Interspeech 2006 paper finds the same in Iraqi Arabic). Said alone
 * over the agent, one neither stops it nor is a turn for the model. "طيب" is left out: callers
 * use it to take the floor ("طيب، عندي سؤال"), and "لا" is never one.
 */
import { HESITATION } from './turn-cues.ts';
import { normalizeForMatch } from '../text/match.ts';

/**
 * The words of a backchannel, as callers across the region say them: آه، إيه، إي، أيوه، نعم، تمام،
 * أوكي، صح، زين، ماشي (Egypt and the Levant), هيه (Emirati), واخا (Moroccan), and hesitations
 * (ممم، اممم, matched by their shape). Written as a transcript spells them; compared normalized.
 */
export const BACKCHANNELS: readonly string[] = [
  'آه', 'اها', 'أها', 'إيه', 'إي', 'أيوه', 'أيوا', 'إيوه', 'نعم', 'تمام', 'أوكي', 'أوك', 'ok', 'okay', 'صح', 'صحيح', 'مضبوط', 'زين', 'ماشي',
  'هيه', 'واخا', 'أكيد', 'يب', 'مم', 'هم', 'ههه',
];

/** At most this many words make a backchannel ("آه آه تمام"); more is something said. */
const MAX_WORDS = 4;

/** A matcher for `words` (normalized once): true for a transcript made only of them. */
export function backchannelMatcher(words: readonly string[]): (text: string) => boolean {
  const set = new Set(words.map(normalizeForMatch));
  return (text) => {
    const tokens = normalizeForMatch(text).split(' ').filter(Boolean);
    return tokens.length > 0 && tokens.length <= MAX_WORDS && tokens.every((t) => set.has(t) || HESITATION.test(t));
  };
}

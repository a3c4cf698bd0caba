// The Arabic tasks as dialogues on text alone: each step is what the caller says or keys and
// what the task answers (a line spoken, and the result when it ends).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TASK_DEFAULTS, amountTask, confirmTask, dateTask, digitsTask, nameTask, readName, spellName, type CollectTask, type DateTaskOptions, type TaskInput, type TaskStep } from '../../src/index.ts';

const L = TASK_DEFAULTS.lines;
const say = (text: string): TaskInput => ({ kind: 'speech', text });
const keys = (digits: string): TaskInput => ({ kind: 'dtmf', digits });

/** Runs a dialogue: the inputs in order (null: the caller stayed silent); returns every step. */
function run<T>(task: CollectTask<T>, inputs: (TaskInput | null)[]): TaskStep<T>[] {
  const steps = [task.start()];
  for (const input of inputs) steps.push(input ? task.next(input) : task.timeout!());
  return steps;
}

const PHONE_READ = 'صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة';

test('phone: said in Gulf digits, read back in groups, confirmed with إيه', () => {
  const steps = run(digitsTask({ kind: 'phone' }), [say('رقمي صفر خمسة صفر، واحد ثنين ثلاثة، أربعة خمسة ستة سبعة'), say('إيه صح')]);
  assert.equal(steps[0]!.say, L.prompts.phone);
  assert.equal(steps[1]!.say, `الرقم ${PHONE_READ}، صحيح؟`);
  assert.deepEqual(steps[2]!.done, { ok: true, value: '+966501234567' });
});

test('phone: keyed with # at the end and * to clear a mistake, confirmed with 1', () => {
  const steps = run(digitsTask({ kind: 'phone' }), [keys('0599*0501234567#'), keys('1')]);
  assert.equal(steps[1]!.say, `الرقم ${PHONE_READ}، صحيح؟`);
  assert.deepEqual(steps[2]!.done, { ok: true, value: '+966501234567' });
});

test('phone: "no" asks again; a new number said instead of yes is read back in turn', () => {
  const steps = run(digitsTask({ kind: 'phone' }), [
    say('صفر خمسة خمسة واحد اتنين تلاتة اربعة خمسة ستة سبعة'), say('لا'), say('صفر خمسة صفر واحد اتنين تلاتة اربعة خمسة ستة تمنية'),
    say('لأ، صفر خمسة صفر واحد اتنين تلاتة اربعة خمسة ستة سبعة'), say('أيوه'),
  ]);
  assert.equal(steps[2]!.say, `${L.tryAgain} ${L.prompts.phone}`);
  assert.match(steps[3]!.say!, /ستة ثمانية، صحيح؟$/);
  assert.equal(steps[4]!.say, `الرقم ${PHONE_READ}، صحيح؟`);
  assert.deepEqual(steps[5]!.done, { ok: true, value: '+966501234567' });
});

test("phone: a Kuwaiti caller's number with country 'KW', said without a 0, read back in Kuwait's groups", () => {
  const steps = run(digitsTask({ kind: 'phone', country: 'KW' }), [say('رقمي خمسة صفر صفر، واحد اتنين تلاتة اربعة خمسة'), say('إيه')]);
  assert.equal(steps[1]!.say, 'الرقم خمسة صفر صفر، واحد اثنان، ثلاثة أربعة خمسة، صحيح؟');
  assert.deepEqual(steps[2]!.done, { ok: true, value: '+96550012345' });
  // The same eight digits are no Saudi number: without the country the task asks again.
  const saudi = run(digitsTask({ kind: 'phone' }), [say('خمسة صفر صفر واحد اتنين تلاتة اربعة خمسة')]);
  assert.equal(saudi[1]!.done, undefined);
  assert.match(saudi[1]!.say!, /^عذرًا، الرقم الذي سمعته غير صحيح\./);
});

test('"repeat that" re-reads the value without counting a try', () => {
  const task = digitsTask({ kind: 'phone', maxAttempts: 1 });
  const steps = run(task, [say('0501234567'), say('عيد لو سمحت'), say('ما سمعت'), say('نعم')]);
  assert.equal(steps[2]!.say, steps[1]!.say);
  assert.equal(steps[3]!.say, steps[1]!.say);
  assert.deepEqual(steps[4]!.done, { ok: true, value: '+966501234567' });
});

test('national ID: a failing checksum is refused, and after three failures the task fails typed', () => {
  const steps = run(digitsTask({ kind: 'national_id' }), [say('واحد صفر صفر صفر صفر صفر صفر صفر صفر صفر'), say('ما أعرف'), say('1234')]);
  assert.equal(steps[1]!.say, `${L.invalid.replace('{label}', L.labels.national_id)} ${L.prompts.national_id}`);
  assert.equal(steps[2]!.say, `${L.notUnderstood} ${L.prompts.national_id}`);
  assert.equal(steps[3]!.say, L.giveUp);
  assert.deepEqual(steps[3]!.done, { ok: false, reason: 'max_attempts', lastHeard: '1234' });
});

test('national ID: a valid iqama is read back 3-3-4 and confirmed', () => {
  const steps = run(digitsTask({ kind: 'national_id' }), [say('اتنين صفر صفر صفر صفر صفر صفر صفر صفر ستة'), say('تمام')]);
  assert.equal(steps[1]!.say, 'رقم الهوية اثنان صفر صفر، صفر صفر صفر، صفر صفر صفر ستة، صحيح؟');
  assert.deepEqual(steps[2]!.done, { ok: true, value: '2000000006' });
});

test('IBAN: the digits after SA, checked mod 97, read back in fours', () => {
  const steps = run(digitsTask({ kind: 'iban' }), [keys('0380000000608010167519#'), say('نعم')]);
  assert.match(steps[1]!.say!, /^الآيبان إس إيه صفر ثلاثة، ثمانية صفر صفر صفر، /);
  assert.deepEqual(steps[2]!.done, { ok: true, value: 'SA0380000000608010167519' });
  const said = run(digitsTask({ kind: 'iban', country: 'AE' }), [say('إس إيه صفر تلاتة تمانية صفر صفر صفر صفر صفر صفر صفر ستة صفر تمانية صفر واحد صفر واحد ستة سبعة خمسة واحد تسعة')]);
  assert.match(said[1]!.say!, /^الآيبان إس إيه صفر ثلاثة، /);
  const emirati = run(digitsTask({ kind: 'iban', country: 'AE' }), [say('صفر سبعة، صفر تلاتة تلاتة واحد، اتنين تلاتة أربعة خمسة، ستة سبعة تمانية تسعة، صفر واحد اتنين تلاتة، أربعة خمسة ستة'), say('إيه')]);
  assert.deepEqual(emirati[2]!.done, { ok: true, value: 'AE070331234567890123456' });
  const wrong = run(digitsTask({ kind: 'iban' }), [keys('0380000000608010167518#')]);
  assert.match(wrong[1]!.say!, /غير صحيح/);
});

test('card last four and OTP: lengths checked; custom validate refuses', () => {
  const card = run(digitsTask({ kind: 'card_last4' }), [say('آخر أربعة أرقام ثمانية ثمانية صفر واحد'), say('صح')]);
  assert.deepEqual(card[2]!.done, { ok: true, value: '8801' });
  const otp = run(digitsTask({ kind: 'otp', length: 6 }), [say('أربعة ثمانية اتنين تسعة')]);
  assert.match(otp[1]!.say!, /غير صحيح/);
  const custom = run(digitsTask({ kind: 'custom', validate: (d) => d.startsWith('9') }), [say('خمسة خمسة'), say('تسعة تسعة'), say('إيه')]);
  assert.match(custom[1]!.say!, /غير صحيح/);
  assert.deepEqual(custom[3]!.done, { ok: true, value: '99' });
  // Keyed: the caller is told what they entered is wrong, not that it was misheard.
  const keyedCustom = run(digitsTask({ kind: 'custom', validate: (d) => d.startsWith('9') }), [keys('55#')]);
  assert.equal(keyedCustom[1]!.say, `${L.invalidKeyed.replace('{label}', L.labels.custom)} ${L.prompts.custom}`);
  assert.match(keyedCustom[1]!.say!, /أدخلته/);
});

test('the caller declining the question ends the task as caller_declined', () => {
  const steps = run(digitsTask({ kind: 'national_id' }), [say('لا ما أبي')]);
  assert.deepEqual(steps[1]!.done, { ok: false, reason: 'caller_declined' });
});

test('silence re-prompts, then ends as no_input', () => {
  const steps = run(digitsTask({ kind: 'otp', maxAttempts: 2 }), [null, null]);
  assert.equal(steps[1]!.say, `${L.noInput} ${L.prompts.otp}`);
  assert.deepEqual(steps[2]!.done, { ok: false, reason: 'no_input' });
});

test('unclear answers to the read-back ask for yes or no and count as tries', () => {
  const steps = run(digitsTask({ kind: 'card_last4', maxAttempts: 2 }), [say('٤٨٢١'), say('يعني'), say('السلام عليكم')]);
  assert.equal(steps[2]!.say, `${L.yesOrNo} آخر أربعة أرقام أربعة ثمانية اثنان واحد، صحيح؟`);
  assert.deepEqual(steps[3]!.done, { ok: false, reason: 'max_attempts', lastHeard: '4821' });
});

test('lines are overridable per task', () => {
  const steps = run(digitsTask({ kind: 'phone', prompt: 'رقم جوالك لو سمحت؟', lines: { confirm: 'تقصد {value}؟' } }), [say('0501234567')]);
  assert.equal(steps[0]!.say, 'رقم جوالك لو سمحت؟');
  assert.equal(steps[1]!.say, `تقصد ${PHONE_READ}؟`);
});

test('date: relative day and time, read back with the weekday, confirmed', () => {
  const task = dateTask({ now: new Date('2027-01-14T08:00:00Z'), timeZone: 'Asia/Riyadh' });
  const steps = run(task, [say('بكرة الساعة أربعة العصر'), say('أيوه')]);
  assert.equal(steps[1]!.say, 'الموعد يوم الجمعة، الخامس عشر من يناير ألفين وسبعة وعشرين، الساعة الرابعة عصرًا، صحيح؟');
  assert.deepEqual(steps[2]!.done, { ok: true, value: { date: '2027-01-15', time: '16:00', calendar: 'gregory', text: 'بكرة الساعة أربعة العصر' } });
});

test('date: a Hijri date is read back in Hijri; requireTime asks the hour of a day said without one; keys DDMMYYYY', () => {
  const hijri = run(dateTask({ now: new Date('2025-01-01T09:00:00Z') }), [say('١ رمضان')]);
  assert.equal(hijri[1]!.say, 'الموعد يوم السبت، الأول من رمضان ألف وأربعمئة وستة وأربعين للهجرة، صحيح؟');
  // It said the date heard was wrong ("الموعد الذي سمعته غير صحيح") and asked for the date again, three times.
  const timed = run(dateTask({ now: new Date('2027-01-14T08:00:00Z'), requireTime: true }), [say('بكرة'), say('الساعة عشرة'), say('نعم')]);
  assert.equal(timed[1]!.say, 'في أي ساعة؟');
  assert.deepEqual(timed[3]!.done, { ok: true, value: { date: '2027-01-15', time: '10:00', calendar: 'gregory', text: 'بكرة الساعة عشرة' } });
  // A new day said in answer is asked its hour in turn.
  const other = run(dateTask({ now: new Date('2027-01-14T08:00:00Z'), requireTime: true }), [say('بكرة'), say('لا، بعد بكرة')]);
  assert.equal(other[2]!.say, 'في أي ساعة؟');
  const keyed = run(dateTask({ prefer: 'past' }), [keys('15031990#'), keys('1')]);
  assert.equal((keyed[2]!.done as { value: { date: string } }).value.date, '1990-03-15');
});

test('date: requireTime asks for the hour of a part of the day said alone, and reads the answer on that day', () => {
  const now = new Date('2027-01-14T08:00:00Z');
  const steps = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), say('ما أدري'), say('الساعة أربعة'), say('أيوه')]);
  assert.equal(steps[1]!.say, 'في أي ساعة بعد الظهر؟');
  assert.equal(steps[2]!.say, `${L.notUnderstood} في أي ساعة بعد الظهر؟`);
  assert.equal(steps[3]!.say, 'الموعد يوم الجمعة، الخامس عشر من يناير ألفين وسبعة وعشرين، الساعة الرابعة عصرًا، صحيح؟');
  assert.deepEqual(steps[4]!.done, { ok: true, value: { date: '2027-01-15', time: '16:00', calendar: 'gregory', text: 'بكرة العصر الساعة أربعة' } });
  // An hour after midnight of the night said is on the next date; an answer with a day of its own is a new date.
  const night = run(dateTask({ now, requireTime: true }), [say('بكرة بالليل'), say('وحدة'), say('أيوه')]);
  assert.equal(night[1]!.say, 'في أي ساعة من الليل؟');
  assert.deepEqual((night[3]!.done as { value: object }).value, { date: '2027-01-16', time: '01:00', calendar: 'gregory', text: 'بكرة بالليل وحدة' });
  const other = run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), say('لا بعد بكرة الساعة خمسة'), say('أيوه')]);
  assert.equal(other[1]!.say, 'في أي ساعة من الصباح؟');
  assert.equal((other[3]!.done as { value: { date: string; time: string } }).value.date, '2027-01-16');
  assert.equal((other[3]!.done as { value: { date: string; time: string } }).value.time, '17:00');
  // A task's own names for the parts of the day (the rest stay the defaults).
  const own = dateTask({ now, requireTime: true, lines: { partsOfDay: { afternoon: 'العصر' } } });
  assert.equal(run(own, [say('بكرة العصر')])[1]!.say, 'في أي ساعة من العصر؟');
  assert.equal(run(dateTask({ now, requireTime: true, lines: { partsOfDay: { afternoon: 'العصر' } } }), [say('بكرة الصبح')])[1]!.say, 'في أي ساعة من الصباح؟');
  // The hour of a part of the day is asked "من" it (إضافة needs the preposition: في أي ساعة من
  // الصباح), unless its name is an adverb of time already (بعد الظهر، بعد المغرب), a task's own names too.
  const asked = (said: string, lines?: DateTaskOptions['lines']) => run(dateTask({ now, requireTime: true, lines }), [say(said)])[1]!.say;
  assert.equal(asked('بكرة الفجر'), 'في أي ساعة من الفجر؟');
  assert.equal(asked('بكرة الظهر'), 'في أي ساعة من الظهيرة؟');
  assert.equal(asked('بكرة المغرب'), 'في أي ساعة بعد المغرب؟');
  assert.equal(asked('بكرة المسا'), 'في أي ساعة من المساء؟');
  assert.equal(asked('بكرة العصر', { partsOfDay: { afternoon: 'بعد العصر' } }), 'في أي ساعة بعد العصر؟');
  assert.equal(asked('بكرة الصبح', { partsOfDay: { morning: 'من صباح ذلك اليوم' } }), 'في أي ساعة من صباح ذلك اليوم؟');
  assert.equal(asked('بكرة الصبح', { askHour: 'متى {value} بالضبط؟' }), 'متى من الصباح بالضبط؟');
  // Without requireTime the part of the day is the answer, marked as such.
  const loose = run(dateTask({ now }), [say('بكرة العصر'), say('أيوه')]);
  assert.equal((loose[2]!.done as { value: { partOfDay: string } }).value.partOfDay, 'afternoon');
});

test('amount: said in Egyptian with its currency, read back in agreement; min and max', () => {
  const steps = run(amountTask({ currency: 'جنيه' }), [say('ألف وخمسمية جنيه'), say('مظبوط')]);
  assert.equal(steps[1]!.say, 'المبلغ ألف وخمسمئة جنيه، صحيح؟');
  assert.deepEqual(steps[2]!.done, { ok: true, value: { amount: 1500, currency: 'جنيه' } });
  const capped = run(amountTask({ max: 1000 }), [say('ألفين ريال')]);
  assert.match(capped[1]!.say!, /غير صحيح/);
  assert.throws(() => amountTask({ currency: 'XYZ' }), /unknown currency/);
});

test('name: spelled letter by letter, read back with its spelling; "no" asks again', () => {
  const steps = run(nameTask(), [say('اسمي ميم حاء ميم دال'), say('لا'), say('أحمد'), say('نعم')]);
  assert.equal(steps[1]!.say, 'الاسم محمد: ميم، حاء، ميم، دال، صحيح؟');
  assert.equal(steps[2]!.say, `${L.tryAgain} ${L.prompts.name}`);
  assert.equal(steps[3]!.say, 'الاسم أحمد: ألف فوقها همزة، حاء، ميم، دال، صحيح؟');
  assert.deepEqual(steps[4]!.done, { ok: true, value: 'أحمد' });
});

test('name: the hamza and madda are spelled back on their seats, and read so when the caller spells them', () => {
  // The seat, then the sign on it: "ألف همزة" (two nouns side by side, "the alif of a hamza") named أ and إ alike.
  assert.equal(spellName('إيمان'), 'ألف تحتها همزة، ياء، ميم، ألف، نون');
  assert.equal(spellName('آمنة'), 'ألف فوقها مدة، ميم، نون، تاء مربوطة');
  assert.equal(spellName('هيئة مؤمن'), 'هاء، ياء، ياء فوقها همزة، تاء مربوطة، مسافة، ميم، واو فوقها همزة، ميم، نون');
  for (const name of ['أحمد', 'إيمان', 'آمنة', 'هيئة', 'مؤمن']) assert.equal(readName(spellName(name).replace(/،/g, '')), name, name);
  // As callers say them: the short "ألف همزة", "عليها" for "فوقها".
  assert.equal(readName('ألف همزة حاء ميم دال'), 'أحمد');
  // A short "ألف همزة" is أ where a word starts, the two letters after one.
  assert.equal(readName('ألف همزة سين ميم ألف همزة'), 'أسماء');
  assert.equal(readName('ألف عليها همزة ميم ألف لام'), 'أمال');
  // The other orders callers say the seat in, as spelling is taught ("همزة تحت الألف"), or "تحت" for
  // "تحتها": the seat was read as a lone alif and dropped (the first was "ءيمان", the second "يمان").
  const spelled: [string, string][] = [
    ['ألف تحت همزة ياء ميم ألف نون', 'إيمان'], ['ألف تحتها الهمزة ياء ميم ألف نون', 'إيمان'], ['ألف همزة تحت باء راء ألف هاء ياء ميم', 'إبراهيم'],
    ['همزة تحت الألف ياء ميم ألف نون', 'إيمان'], ['همزة على الألف حاء ميم دال', 'أحمد'], ['ميم همزة على الواو ميم نون', 'مؤمن'],
    ['هاء ياء همزة على نبرة تاء مربوطة', 'هيئة'], ['سين ميم ألف همزة على السطر', 'سماء'], ['ألف فوق مدة ميم نون تاء مربوطة', 'آمنة'],
  ];
  for (const [said, name] of spelled) assert.equal(readName(said), name, said);
  // A seat that does not take the sign so ("ياء تحتها همزة") is not made one.
  assert.doesNotMatch(readName('ميم ياء تحتها همزة ميم') ?? '', /[ئإ]/);
});

test('name: a kunya with أم, the Moroccan and telephone ways of giving it, and a correction in the same breath', () => {
  // أم محمد is a woman's name by her son (أم was dropped as the hesitation "ام", leaving محمد);
  // "ام" without its hamza before a name stays a hesitation.
  assert.equal(readName('اسمي أم محمد'), 'أم محمد');
  assert.equal(readName('اسمي ام… محمد'), 'محمد');
  // Moroccan سميتي "my name is" (Harrell 1966); معك "(you are) with …", as callers give a name on the phone.
  assert.equal(readName('سميتي يوسف'), 'يوسف');
  assert.equal(readName('معك أحمد'), 'أحمد');
  // "لا لا قصدي أحمد" was read as the name "قصدي أحمد".
  assert.equal(readName('محمد، لا لا قصدي أحمد'), 'أحمد');
  const steps = run(nameTask(), [say('اسمي محمد'), say('لا لا قصدي أحمد'), say('نعم')]);
  assert.match(steps[2]!.say!, /^الاسم أحمد:/);
  assert.deepEqual(steps[3]!.done, { ok: true, value: 'أحمد' });
});

test('name: تاء مربوطة spelled; a name said instead of yes replaces the first', () => {
  const steps = run(nameTask(), [say('فاء ألف طاء ميم تاء مربوطة'), say('لا، اسمي فاطمه الزهراء'), say('إي')]);
  assert.match(steps[1]!.say!, /^الاسم فاطمة:/);
  assert.match(steps[2]!.say!, /^الاسم فاطمه الزهراء:/);
  assert.deepEqual(steps[3]!.done, { ok: true, value: 'فاطمه الزهراء' });
});

test('confirm: yes/no in dialects, "say again" repeats the question, unclear asks again', () => {
  const q = 'هل تريد إلغاء البطاقة؟';
  const steps = run(confirmTask(q), [say('نعم؟'), say('مدري'), say('لا لا أقصد إيه')]);
  assert.equal(steps[1]!.say, q);
  assert.equal(steps[2]!.say, `${L.yesOrNo} ${q}`);
  assert.deepEqual(steps[3]!.done, { ok: true, value: true });
  assert.deepEqual(run(confirmTask(q), [say('لأ مش عايز')])[1]!.done, { ok: true, value: false });
  assert.deepEqual(run(confirmTask(q), [keys('2')])[1]!.done, { ok: true, value: false });
  assert.deepEqual(run(confirmTask(q, { maxAttempts: 1 }), [say('يعني')])[1]!.done, { ok: false, reason: 'max_attempts' });
});

test('bad options are refused with a clear error; a finished task refuses more input', () => {
  assert.throws(() => digitsTask({ kind: 'passport' as never }), /unknown kind "passport"/);
  assert.throws(() => digitsTask({ kind: 'otp', length: 0 }), /length must be a positive whole number/);
  assert.throws(() => digitsTask({ kind: 'otp', maxAttempts: 0 }), /maxAttempts must be a whole number of at least 1/);
  assert.throws(() => confirmTask('  '), /question is empty/);
  assert.throws(() => confirmTask({ prompt: 'هل تريد إيقاف البطاقة؟' } as unknown as string), /the question must be a string \(confirmTask\(question, options\)\), got object/);
  const task = digitsTask({ kind: 'card_last4' });
  run(task, [say('1234'), say('نعم')]);
  assert.throws(() => task.next(say('نعم')), /the task is over/);
});

test('date: the hour keyed in answer to the hour question is read on the day already given', () => {
  const now = new Date('2027-01-14T08:00:00Z');
  // 4 in the afternoon of tomorrow; keyed as 4, 16 or 430.
  const four = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('4#'), keys('1')]);
  assert.equal(four[2]!.say, 'الموعد يوم الجمعة، الخامس عشر من يناير ألفين وسبعة وعشرين، الساعة الرابعة عصرًا، صحيح؟');
  assert.deepEqual(four[3]!.done, { ok: true, value: { date: '2027-01-15', time: '16:00', calendar: 'gregory', text: 'بكرة العصر 4:00' } });
  const sixteen = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('16#'), keys('1')]);
  assert.equal((sixteen[3]!.done as { value: { date: string; time: string } }).value.time, '16:00');
  const halfPast = run(dateTask({ now, requireTime: true }), [say('بعد بكرة الصبح'), keys('930#'), keys('1')]);
  assert.deepEqual((halfPast[3]!.done as { value: { date: string; time: string } }).value, { date: '2027-01-16', time: '09:30', calendar: 'gregory', text: 'بعد بكرة الصبح 9:30' });
  // One in the night said is on the next date, as when said.
  const night = run(dateTask({ now, requireTime: true }), [say('بكرة بالليل'), keys('1#'), keys('1')]);
  assert.deepEqual((night[3]!.done as { value: { date: string; time: string } }).value, { date: '2027-01-16', time: '01:00', calendar: 'gregory', text: 'بكرة بالليل 1:00' });
  // Keys that are no hour: the keyed line, then the hour question again; a whole date keyed is a new date, asked its hour.
  const wrong = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('99#')]);
  assert.equal(wrong[2]!.say, `${L.invalidKeyed.replace('{label}', L.labels.date)} في أي ساعة بعد الظهر؟`);
  const date = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('20012027#'), keys('4#'), keys('1')]);
  assert.equal(date[2]!.say, 'في أي ساعة؟', 'the new date keyed, and its hour asked (it was refused: keys hold no hour)');
  assert.deepEqual(date[4]!.done, { ok: true, value: { date: '2027-01-20', time: '16:00', calendar: 'gregory', text: '2027-01-20 4:00' } });
});

test('date: an hour keyed or said that is not in the part of the day given is asked again; 12 of the morning is asked without the part, 0 is not the morning', () => {
  const now = new Date('2027-01-14T08:00:00Z');
  const value = (steps: TaskStep<unknown>[]) => (steps.at(-1)!.done as { value: { date: string; time: string } }).value;
  const again = (part: string) => `${L.invalidKeyed.replace('{label}', L.labels.date)} ${part}`;
  // 9:30 is neither 09:30 nor 21:30 of the afternoon: the keys contradict "العصر", asked again naming it.
  const halfNine = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('930#')]);
  assert.equal(halfNine[2]!.say, again('في أي ساعة بعد الظهر؟'));
  assert.ok(!halfNine[2]!.done, 'not taken as 21:30');
  const thenFour = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('930#'), keys('430#'), keys('1')]);
  assert.deepEqual(value(thenFour), { date: '2027-01-15', time: '16:30', calendar: 'gregory', text: 'بكرة العصر 4:30' });
  // Said, the same: the line says it was heard, not keyed.
  const saidNine = run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), say('الساعة تسعة ونص')]);
  assert.equal(saidNine[2]!.say, `${L.invalid.replace('{label}', L.labels.date)} في أي ساعة بعد الظهر؟`);
  // 12 of the morning is noon (الظهر) or midnight (بالليل), neither of them the morning: which is
  // asked, and the answer is the part alone or an hour of its own.
  const twelve = run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), keys('12#')]);
  assert.equal(twelve[2]!.say, L.askTwelve);
  assert.deepEqual(value(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), keys('12#'), say('الضهر'), say('نعم')])).time, '12:00');
  assert.deepEqual(value(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), say('اتناشر'), say('منتصف الليل'), say('نعم')])).date, '2027-01-16');
  assert.deepEqual(value(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), say('اتناشر'), say('بالليل'), say('نعم')])), { date: '2027-01-16', time: '00:00', calendar: 'gregory', text: 'بكرة الصبح الساعة 12:00 بالليل' });
  assert.equal(value(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), say('اتناشر'), say('لا، وحدة الضهر'), say('نعم')])).time, '13:00');
  // Said in one breath, the same question, also without requireTime; and for 12 am.
  for (const said of ['بكرة الساعة اتناشر الصبح', 'بكرة 12 am']) {
    assert.equal(run(dateTask({ now }), [say(said)])[1]!.say, L.askTwelve, said);
    assert.equal(value(run(dateTask({ now }), [say(said), say('نص الليل'), say('نعم')])).time, '00:00', said);
  }
  // 0 keyed is midnight, one time only, and not the morning: asked again.
  assert.equal(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), keys('0#')])[2]!.say, again('في أي ساعة من الصباح؟'));
  // A 24-hour hour inside the part is taken as keyed; the small hours are the morning as callers say them; the night keeps its midnight.
  assert.equal(value(run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), keys('1630#'), keys('1')])).time, '16:30');
  assert.equal(value(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), keys('3#'), keys('1')])).time, '03:00');
  assert.deepEqual(value(run(dateTask({ now, requireTime: true }), [say('بكرة بالليل'), keys('12#'), keys('1')])), { date: '2027-01-16', time: '00:00', calendar: 'gregory', text: 'بكرة بالليل 12:00' });
  assert.equal(run(dateTask({ now, requireTime: true }), [say('بكرة الصبح'), keys('21#')])[2]!.say, again('في أي ساعة من الصباح؟'));
  // An answer naming its own part of the day is read by it: the caller changed the part.
  assert.equal(value(run(dateTask({ now, requireTime: true }), [say('بكرة العصر'), say('لا، تسعة ونص الصبح'), say('نعم')])).time, '09:30');
});

test('date: with requireTime a keyed date (DDMMYYYY holds no hour) is asked its hour, keyed or said', () => {
  const now = new Date('2027-01-14T08:00:00Z');
  const keyedHour = run(dateTask({ now, requireTime: true }), [keys('20012027#'), keys('930#'), keys('1')]);
  assert.equal(keyedHour[1]!.say, 'في أي ساعة؟');
  assert.equal(keyedHour[2]!.say, 'الموعد يوم الأربعاء، العشرون من يناير ألفين وسبعة وعشرين، الساعة التاسعة والنصف، صحيح؟');
  assert.deepEqual(keyedHour[3]!.done, { ok: true, value: { date: '2027-01-20', time: '09:30', calendar: 'gregory', text: '2027-01-20 9:30' } });
  const saidHour = run(dateTask({ now, requireTime: true }), [keys('20012027#'), say('الساعة أربعة العصر'), say('نعم')]);
  assert.deepEqual((saidHour[3]!.done as { value: { date: string; time: string } }).value.time, '16:00');
  assert.equal((saidHour[3]!.done as { value: { date: string; time: string } }).value.date, '2027-01-20');
  // Your own hour question without its part of the day; an answer with no hour is a try, then the question again.
  const own = run(dateTask({ now, requireTime: true, lines: { askHour: 'متى {value} بالضبط؟' } }), [keys('20012027#'), say('ما أدري')]);
  assert.equal(own[1]!.say, 'متى بالضبط؟');
  assert.equal(own[2]!.say, `${L.notUnderstood} متى بالضبط؟`);
  // Without requireTime a keyed date is the value, as before.
  const plain = run(dateTask({ now }), [keys('20012027#')]);
  assert.equal(plain[1]!.say, 'الموعد يوم الأربعاء، العشرون من يناير ألفين وسبعة وعشرين، صحيح؟');
});

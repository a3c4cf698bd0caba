// Readings before synthesis, written by hand:
// - a keypad key after "press" is named as call-centre prompts name it: the key's name as the
//   verb's object, so 2 is اثنين, the accusative (and genitive, after على) of the dual اثنان
//   (K. C. Ryding, "A Reference Grammar of Modern Standard Arabic", 2005, on the cardinal
//   numerals: اثنان declines as a dual, -āni in the nominative, -ayni in the accusative and
//   genitive); the other digits' names do not change. Spoken Arabic has only the -ayn form
//   (اتنين، ثنين), so the prompt sounds right to every caller;
// - the function keys: ITU-T E.161 ("Arrangement of digits, letters and symbols on telephones…",
//   2001) names them the "star" (*) and the "square" (#) keys, نجمة and مربع word for word; Saudi
//   and Gulf call-centre prompts say them so ("للعودة اضغط نجمة"، "ثم اضغط المربع", the form this
//   project's own prompts use); شباك, another name some callers give #, is not used. A search for
//   a published Arabic IVR style guide found none, so this follows heard prompts;
// - a number after "press" followed by a counted noun counts presses or time: the verb's object,
//   accusative ("اضغط ثلاث مرات"، "اضغط ثانيتين", Ryding on the cognate accusative and the
//   accusative of time); a noun that already carries its count (مرتين، مرة واحدة، مرة أخرى)
//   leaves the digit a key ("اضغط اثنين مرتين": press 2 twice);
// - a run of digits written without spaces is said in groups with a pause (the Arabic comma, at
//   which the synthesizer pauses: docs/arabic-parsing.md#read-back) between them: a local phone
//   3-3-4 (Saudi, Emirati 05X XXX XXXX) or 3-4-4 (Egyptian 01X XXXX XXXX), a number with its
//   country code as the country writes it internationally (ITU-T E.123: +966 50 123 4567), an
//   ID 3-3-4, other long runs in fours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeForSpeech } from '../../src/text/index.ts';

const cases = (list: [string, string][]) => {
  for (const [written, said] of list) assert.equal(normalizeForSpeech(written), said, written);
};

test('a keypad key after "press" is the key\'s name: 2 is اثنين', () => {
  cases([
    ['اضغط 2 للتحدث مع موظف', 'اضغط اثنين للتحدث مع موظف'],
    ['للغة العربية اضغط 1، وللإنجليزية اضغط 2', 'للغة العربية اضغط واحد، وللإنجليزية اضغط اثنين'],
    ['إضغط ٢ لتأكيد الحجز', 'إضغط اثنين لتأكيد الحجز'],
    ['دوس 2 عشان تكلم الموظف', 'دوس اثنين عشان تكلم الموظف'],
    ['اكبس 2 للرجوع', 'اكبس اثنين للرجوع'],
    ['اضغطي 1 أو 2', 'اضغطي واحد أو اثنين'],
    ['ثم اضغط على الرقم 2', 'ثم اضغط على الرقم اثنين'],
    ['لإعادة الاستماع اضغط 0', 'لإعادة الاستماع اضغط صفر'],
    ['واضغط 9 للقائمة الرئيسية', 'واضغط تسعة للقائمة الرئيسية'],
  ]);
});

test('a number after "press" that is no key keeps its reading', () => {
  cases([
    ['اضغط 10 مرات', 'اضغط عشر مرات'],
    ['اضغط 3 مرات على الزر', 'اضغط ثلاث مرات على الزر'],
    ['اضغط الزر لمدة 2 ثانية', 'اضغط الزر لمدة ثانيتين'],
    ['اضغط 2 ثانية', 'اضغط ثانيتين'],
    ['اضغط 1 مرة', 'اضغط مرةً واحدةً'],
    ['انقر 5 مرات', 'انقر خمس مرات'],
    ['انتظر 2 ثانية', 'انتظر ثانيتين'],
    ['انتظر 3 دقائق ثم اضغط 1', 'انتظر ثلاث دقائق ثم اضغط واحد'],
  ]);
});

test('the star and hash keys are named, and a key followed by words stays a key', () => {
  cases([
    ['اضغط *', 'اضغط النجمة'],
    ['اضغط #', 'اضغط المربع'],
    ['للعودة إلى القائمة الرئيسية اضغط *', 'للعودة إلى القائمة الرئيسية اضغط النجمة'],
    ['أدخل رقم الهوية ثم اضغط #', 'أدخل رقم الهوية ثم اضغط المربع'],
    ['اضغط 1 ثم #', 'اضغط واحد ثم المربع'],
    ['اضغطي * أو 0', 'اضغطي النجمة أو صفر'],
    ['اضغط 0 للعودة', 'اضغط صفر للعودة'],
    ['اضغط 2 مرتين', 'اضغط اثنين مرتين'],
    ['اضغط 1 مرة واحدة', 'اضغط واحد مرة واحدة'],
    ['اضغط 9 مرة أخرى', 'اضغط تسعة مرة أخرى'],
    ['اضغط 3 لو سمحت', 'اضغط ثلاثة لو سمحت'],
    // A code dialled whole (USSD) is its keys one by one.
    ['اطلب *100# لمعرفة رصيدك', 'اطلب نجمة واحد صفر صفر مربع لمعرفة رصيدك'],
    ['اضغط *166*1#', 'اضغط نجمة واحد ستة ستة نجمة واحد مربع'],
    ['للاشتراك اطلب *٨٨٨#', 'للاشتراك اطلب نجمة ثمانية ثمانية ثمانية مربع'],
  ]);
});

test('digit runs are said in groups with a pause between them', () => {
  cases([
    ['اتصل على 0501234567', 'اتصل على صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة'],
    ['رقم جوالك المسجل 0551234567.', 'رقم جوالك المسجل صفر خمسة خمسة، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة.'],
    ['اتصل على 01012345678', 'اتصل على صفر واحد صفر، واحد اثنان ثلاثة أربعة، خمسة ستة سبعة ثمانية'],
    ['اتصل على +966501234567', 'اتصل على زائد تسعة ستة ستة، خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة'],
    ['اتصل على 00966501234567', 'اتصل على صفر صفر تسعة ستة ستة، خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة'],
    ['رقم الهوية 1012345678', 'رقم الهوية واحد صفر واحد، اثنان ثلاثة أربعة، خمسة ستة سبعة ثمانية'],
    ['رقم حسابك 1234567890123456', 'رقم حسابك واحد اثنان ثلاثة أربعة، خمسة ستة سبعة ثمانية، تسعة صفر واحد اثنان، ثلاثة أربعة خمسة ستة'],
    ['رقم المرجع 12345678', 'رقم المرجع واحد اثنان ثلاثة أربعة، خمسة ستة سبعة ثمانية'],
    ['رقم البلاغ 4567123', 'رقم البلاغ أربعة خمسة ستة، سبعة واحد اثنان ثلاثة'],
    ['الآيبان SA0380000000608010167519', 'الآيبان إس إيه صفر ثلاثة، ثمانية صفر صفر صفر، صفر صفر صفر صفر، ستة صفر ثمانية صفر، واحد صفر واحد ستة، سبعة خمسة واحد تسعة'],
  ]);
});

test('short codes and numbers already written in groups read as before', () => {
  cases([
    ['رمز التحقق 482913', 'رمز التحقق أربعة ثمانية اثنان تسعة واحد ثلاثة'],
    ['اتصل على 050 123 4567', 'اتصل على صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة'],
  ]);
});

test('the groups of long runs: fours, a single digit left over making the last two groups 3 and 2', async () => {
  const { groupsForEar } = await import('../../src/text/digit-groups.ts');
  assert.deepEqual(groupsForEar('123456789012'), ['1234', '5678', '9012']);
  assert.deepEqual(groupsForEar('1234567890123'), ['1234', '5678', '901', '23']);
  assert.deepEqual(groupsForEar('12345678901234'), ['1234', '5678', '9012', '34']);
  assert.deepEqual(groupsForEar('920001234'), ['9200', '01234']);
  assert.deepEqual(groupsForEar('482913'), ['482913']);
});

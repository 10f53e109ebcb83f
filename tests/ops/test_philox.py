"""The Philox engine against TensorFlow 2.21's numbers, bit for bit.

Every expected value below was recorded from TensorFlow 2.21 (CPU, Linux x86-64) by running the public
call named next to it; floats are recorded as their bit patterns (uint16/32/64), so comparisons are
exact. Only the engine (`tensorflux._src.ops.philox`) is called: the public ops are wired to it
separately. Large samples are compared by the SHA-256 of TensorFlow's output bytes (little-endian).
"""
import hashlib
import random

import ml_dtypes
import numpy as np
import pytest

from tensorflux._src.ops import philox

DTYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32, "float64": np.float64,
          "int32": np.int32, "int64": np.int64, "uint32": np.uint32, "uint64": np.uint64}
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(values):
    values = np.asarray(values)
    if values.dtype.kind == "f" or values.dtype == ml_dtypes.bfloat16:
        values = values.view(_BITS[values.dtype.itemsize])
    return [int(v) for v in values.reshape(-1)]


# --- recorded from TensorFlow 2.21 ------------------------------------------------------------------------
# GENERATOR_RUNS[i] = (seed, [(bits of step k of SCHEDULE, g.state after it) ...]) for
#   g = tf.random.Generator.from_seed(seed); g.normal([3]); g.uniform([5], dtype=tf.float16); ...
#   (integer uniforms: g.uniform(shape, minval, maxval, dtype); full ints: g.uniform_full_int(shape, dtype)).
# SPLITS[i] = (seed, [s.state for s in g.split(3)], g.state afterwards).
# STATELESS[i] = (seed, alg, dist, shape, dtype, (minval, maxval) or None, bits) for
#   tf.random.stateless_uniform / stateless_normal / stateless_truncated_normal (full ints: minval=maxval=None).
# DIGESTS[(dist, dtype)] = sha256 of tf.random.stateless_<dist>([4099], seed=[11, -12], dtype) bytes.
# GLOBAL[i] = (global seed, [(dist, shape, dtype, op seed, (minval, maxval) or None, bits) ...]) for
#   tf.random.set_seed(global seed) followed by those tf.random.<dist> calls in order.
# NO_GLOBAL = two calls of tf.random.uniform([4], seed=9) with no global seed.

GENERATOR_RUNS = [(1,
  [([1054898418, 3205025366, 3181242362], [769, 0, 0]), ([13708, 12472, 15072, 13780, 14068], [2049, 0, 0]),
   ([16245, 16092, 48802, 16016, 48567, 48701, 15896], [3841, 0, 0]),
   ([4603761947541568744, 4598553420755718468, 4603889275671864212, 4603635280152913238, 4602661583825596168,
     4606825143271282004],
    [5377, 0, 0]),
   ([8, 7, -2, -3, 15, -3, 15, 11, 8], [7681, 0, 0]),
   ([13833470462607525448, 4605038759604934749, 13830357571984625629, 4603399263455990893, 13832212011227988382],
    [8961, 0, 0]),
   ([5590785060460580493, 3493092120222584987, 12379755961098898786], [9729, 0, 0]),
   ([4589302108987366098, 13822592278580269249, 4602257999044626171], [10497, 0, 0]),
   ([48870, 16212, 49172, 49014, 16399, 16104], [12033, 0, 0]),
   ([483488669777, 1329585033768, 747249513774, 11248081362], [13057, 0, 0]),
   ([3170265095, 1059607795, 1060209826, 1051922989, 1050901929, 1030879810, 1048876313, 3203153173, 1050717561],
    [15361, 0, 0]),
   ([48141], [15617, 0, 0]),
   ([16176, 16188, 16130, 15880, 15712, 15984, 15856, 16174, 15808, 16136, 16040], [18433, 0, 0]),
   ([1910906096, 509350365, 402481219, 1122805282, -1319962357], [19713, 0, 0]),
   ([1061083000, 1062044626, 1052326552], [20481, 0, 0]), ([12361, 47825, 16223, 15223], [21505, 0, 0])]),
 (0,
  [([3215809920, 1060396373, 1024862925], [768, 0, 0]), ([15194, 14430, 14556, 14658, 13708], [2048, 0, 0]),
   ([15814, 48944, 48762, 48903, 48973, 16191, 48698], [3840, 0, 0]),
   ([4602970305764629978, 4606572060186496644, 4603761947541568744, 4598553420755718468, 4603889275671864212,
     4603635280152913238],
    [5376, 0, 0]),
   ([2, -5, -2, 8, 8, 7, -2, -3, 15], [7680, 0, 0]),
   ([13835968202629404933, 13827445304578863925, 13833470462607525448, 4605038759604934749, 13830357571984625629],
    [8960, 0, 0]),
   ([5031728290650765192, 8024391119712831305, 5590785060460580493], [9728, 0, 0]),
   ([4594524938158569628, 4589302108987366098, 13822472194701196648], [10496, 0, 0]),
   ([48440, 48128, 16185, 48942, 48870, 16212], [12032, 0, 0]),
   ([-931142470849, -275970114251, 483488669777, 1329585033768], [13056, 0, 0]),
   ([1069762709, 3192817692, 3164487529, 3170265095, 1062915075, 3168629451, 1050285947, 3179403910, 1063051182],
    [15360, 0, 0]),
   ([49152], [15616, 0, 0]),
   ([16218, 15944, 16218, 16104, 16176, 16188, 16130, 15880, 15712, 15984, 15856], [18432, 0, 0]),
   ([423282489, -179675090, -1865495330, 745125090, 1910906096], [19712, 0, 0]),
   ([1045045968, 1061931518, 1063111696], [20480, 0, 0]), ([15103, 45255, 15356, 46762], [21504, 0, 0])]),
 (-1,
  [([3209684563, 3220382219, 3219841661], [767, 0, -1]), ([14372, 14694, 7680, 12128, 15358], [2047, 0, -1]),
   ([16069, 49079, 49107, 16031, 16000, 16098, 16263], [3839, 0, -1]),
   ([4604752622522427252, 4596841211042478536, 4597025434857845336, 4597792744444267896, 4603208038627855406,
     4603416910915448762],
    [5375, 0, -1]),
   ([-4, -3, -4, 16, 8, 8, 5, 9, 10], [7679, 0, -1]),
   ([4608227459994780269, 4599868427162042218, 4607285845512201531, 13827117569656761534, 13820120448417165215],
    [8959, 0, -1]),
   ([17401165313676694019, 8147006876931567253, 2887596771695426548], [9727, 0, -1]),
   ([13827354645673955118, 13814225000986958837, 13827717715251079550], [10495, 0, -1]),
   ([48403, 15894, 48385, 49120, 16323, 49027], [12031, 0, -1]),
   ([1910497555190, 1270882714161, -430339159884, 456743805170], [13055, 0, -1]),
   ([3215929119, 3204874628, 1050791474, 3221143427, 1069572714, 1059083995, 1065039409, 3218330890, 3196600691],
    [15359, 0, -1]),
   ([16082], [15615, 0, -1]),
   ([16116, 16080, 16080, 16162, 15880, 16016, 16088, 16150, 16012, 15984, 16144], [18431, 0, -1]),
   ([1118651998, -1007237982, -1032842179, 587492169, 1360866308], [19711, 0, -1]),
   ([1051873740, 1049207296, 1064423518], [20479, 0, -1]), ([48780, 14509, 14529, 47551], [21503, 0, -1])]),
 (1180591620717411303523,
  [([1068255645, 3195136515, 3205544794], [867, 64, 0]), ([13416, 15278, 15164, 14886, 14288], [2147, 64, 0]),
   ([15778, 16184, 16280, 48977, 48989, 49035, 16344], [3939, 64, 0]),
   ([4602398191105402312, 4598393872890299420, 4598862756600754004, 4600797666083651092, 4598754760749561808,
     4602886487799523860],
    [5475, 64, 0]),
   ([8, -5, -1, 13, -3, 12, 11, 6, 14], [7779, 64, 0]),
   ([13830689411390748617, 4592878361942003585, 13809914516826206117, 13832014035250491013, 4606272591947981809],
    [9059, 64, 0]),
   ([4405661229730952518, 6518263653489745815, 11713993753114689901], [9827, 64, 0]),
   ([4608890958729120571, 13822518151984453281, 4602775650109014411], [10595, 64, 0]),
   ([16289, 49034, 16196, 49230, 15935, 16355], [12131, 64, 0]),
   ([1017620832268, 1679217858502, -205582238294, 971293686911], [13155, 64, 0]),
   ([1050916716, 3208289498, 3183746187, 3189251234, 1046654955, 1045075635, 3201388114, 1056036076, 1073305459],
    [15459, 64, 0]),
   ([13591], [15715, 64, 0]),
   ([16016, 16024, 16156, 16132, 16076, 16214, 16124, 16138, 16166, 16008, 16242], [18531, 64, 0]),
   ([-195199864, -487969999, -674108483, 1008302496, -1463866446], [19811, 64, 0]),
   ([1034595760, 1063138852, 1042917112], [20579, 64, 0]), ([45391, 45529, 16191, 15607], [21603, 64, 0])])]

SPLITS = [(1, [[0, 0, 6679402142117448868], [0, 0, 684265014234019051], [0, 0, 5892734326067077929]], [769, 0, 0]),
 (5, [[0, 0, 511886651086640123], [0, 0, 6557199171514225562], [0, 0, -3553185952259159048]], [773, 0, 0]),
 (36893488147419103233, [[0, 0, 2493203709611413247], [0, 0, 7844406076378205201], [0, 0, -3401633099946930316]],
  [769, 2, 0])]

STATELESS = [([1, 2], 'auto_select', 'uniform', [5], 'float16', None, [14424, 13192, 11200, 15142, 12440]),
 ([1, 2], 'auto_select', 'normal', [5], 'float16', None, [14426, 12963, 11445, 10738, 48437]),
 ([1, 2], 'auto_select', 'truncated_normal', [5], 'float16', None, [14426, 12963, 11445, 10738, 12642]),
 ([1, 2], 'auto_select', 'uniform', [5], 'bfloat16', None, [16048, 16226, 16120, 15896, 15896]),
 ([1, 2], 'auto_select', 'normal', [5], 'bfloat16', None, [16139, 15956, 15767, 15678, 49063]),
 ([1, 2], 'auto_select', 'truncated_normal', [5], 'bfloat16', None, [16139, 15956, 15767, 15678, 15916]),
 ([1, 2], 'auto_select', 'uniform', [3, 3], 'float32', None,
  [1062736984, 1044686728, 1065289852, 1042562200, 1049313868, 1059470218, 1037764016, 1032156128, 1054929580]),
 ([1, 2], 'auto_select', 'normal', [3, 3], 'float32', None,
  [1057704653, 1045715841, 1033283812, 1027486248, 3215366783, 3212062705, 1062697862, 1073235880, 1059502292]),
 ([1, 2], 'auto_select', 'truncated_normal', [3, 3], 'float32', None,
  [1057704653, 1045715841, 1033283812, 1027486248, 1043086892, 3218583340, 1048041047, 1071254185, 1066242977]),
 ([1, 2], 'auto_select', 'uniform', [5], 'float64', None,
  [4604952990652115426, 4606910273233162022, 4595506290538114600, 4605881379892276860, 4602812232652665694]),
 ([1, 2], 'auto_select', 'normal', [5], 'float64', None,
  [13817667380461884307, 4604846016580931118, 13832666858564119687, 4607847814177398330, 13828049385878577753]),
 ([1, 2], 'auto_select', 'truncated_normal', [5], 'float64', None,
  [13817667380461884307, 4604846016580931118, 13826522722986428841, 13828162594725684397, 13824220957742464836]),
 ([1, 2], 'philox', 'uniform_full_int', [5], 'int32', None,
  [1105988140, 1738052849, -335576002, 370444179, 10670227]),
 ([1, 2], 'philox', 'uniform_full_int', [5], 'int64', None,
  [7464880146280614444, 1591045637757961278, -1057468755545501549, 2524363516007002203, 6884554327646026923]),
 ([1, 2], 'philox', 'uniform_full_int', [5], 'uint32', None,
  [1105988140, 1738052849, 3959391294, 370444179, 10670227]),
 ([1, 2], 'philox', 'uniform_full_int', [5], 'uint64', None,
  [7464880146280614444, 1591045637757961278, 17389275318164050067, 2524363516007002203, 6884554327646026923]),
 ([1, 2], 'philox', 'uniform', [7], 'int32', (-10, 10), [-10, -1, 4, 9, -3, -5, 1]),
 ([1, 2], 'philox', 'uniform', [7], 'int64', (-1099511627776, 1125899906842624),
  [761898239527468, 848358784599102, 800191072620691, 1010718540148827, 840780117195947, 556992516700498,
   194219029117911]),
 ([1, 2], 'philox', 'uniform', [7], 'int32', (-2147483648, 2147483647),
  [-1041495508, -409430799, 1811907646, -1777039469, -2136813421, 1901272517, -1081233317]),
 ([1, 2], 'philox', 'uniform', [7], 'int64', (7, 8), [7, 7, 7, 7, 7, 7, 7]),
 ([-1, -2], 'auto_select', 'uniform', [5], 'float16', None, [14188, 13620, 9664, 15152, 12560]),
 ([-1, -2], 'auto_select', 'normal', [5], 'float16', None, [43485, 46451, 14473, 47120, 14436]),
 ([-1, -2], 'auto_select', 'truncated_normal', [5], 'float16', None, [43485, 46451, 14473, 47120, 45119]),
 ([-1, -2], 'auto_select', 'uniform', [5], 'bfloat16', None, [16182, 16154, 15928, 15936, 16008]),
 ([-1, -2], 'auto_select', 'normal', [5], 'bfloat16', None, [48444, 48814, 16145, 48898, 16140]),
 ([-1, -2], 'auto_select', 'truncated_normal', [5], 'bfloat16', None, [48444, 48814, 16145, 48898, 48648]),
 ([-1, -2], 'auto_select', 'uniform', [3, 3], 'float32', None,
  [1064391606, 1057321626, 1061134382, 1052474976, 1051669128, 1031431072, 1063461320, 1012951680, 1044683336]),
 ([-1, -2], 'auto_select', 'normal', [3, 3], 'float32', None,
  [3174800161, 3199096871, 1058090358, 3204575876, 1057783032, 1068354784, 1026308658, 1056540644, 3206496944]),
 ([-1, -2], 'auto_select', 'truncated_normal', [3, 3], 'float32', None,
  [3174800161, 3199096871, 1058090358, 3204575876, 3188188735, 3202444758, 1066522099, 3200319507, 3214239456]),
 ([-1, -2], 'auto_select', 'uniform', [5], 'float64', None,
  [4603052336112562842, 4607077065808527152, 4604817667370493498, 4591717017347427664, 4603002704719102604]),
 ([-1, -2], 'auto_select', 'normal', [5], 'float64', None,
  [13813896994099699444, 4607653870517508065, 4601782752845869311, 4603916944892124649, 13827624329955373484]),
 ([-1, -2], 'auto_select', 'truncated_normal', [5], 'float64', None,
  [13813896994099699444, 4607653870517508065, 4604703061862419215, 4602012530812582444, 13831078469656203753]),
 ([-1, -2], 'philox', 'uniform_full_int', [5], 'int32', None,
  [-830952997, 407025997, -849358825, 1278140312, 187419810]),
 ([-1, -2], 'philox', 'uniform_full_int', [5], 'int64', None,
  [1748163349200808411, 5489570843184844823, -5510203497369580382, -3890616580921257756, 4429537924443837257]),
 ([-1, -2], 'philox', 'uniform_full_int', [5], 'uint32', None,
  [3464014299, 407025997, 3445608471, 1278140312, 187419810]),
 ([-1, -2], 'philox', 'uniform_full_int', [5], 'uint64', None,
  [1748163349200808411, 5489570843184844823, 12936540576339971234, 14556127492788293860, 4429537924443837257]),
 ([-1, -2], 'philox', 'uniform', [7], 'int32', (-10, 10), [9, 7, 1, 2, 0, -1, 2]),
 ([-1, -2], 'philox', 'uniform', [7], 'int64', (-1099511627776, 1125899906842624),
  [186151641590235, 1082575722369047, 840151625092258, 928903731450084, 429110343537481, 730106503472854,
   509048778312376]),
 ([-1, -2], 'philox', 'uniform', [7], 'int32', (-2147483648, 2147483647),
  [1316530651, -1740457651, 1298124823, -869343336, -1960063838, 864539421, -1057910556]),
 ([-1, -2], 'philox', 'uniform', [7], 'int64', (7, 8), [7, 7, 7, 7, 7, 7, 7]),
 ([2147483647, -2147483648], 'auto_select', 'uniform', [5], 'float16', None, [12880, 14486, 14756, 14424, 11888]),
 ([2147483647, -2147483648], 'auto_select', 'normal', [5], 'float16', None, [48945, 16335, 15961, 48612, 46274]),
 ([2147483647, -2147483648], 'auto_select', 'truncated_normal', [5], 'float16', None,
  [48945, 16335, 15961, 48612, 16159]),
 ([2147483647, -2147483648], 'auto_select', 'uniform', [5], 'bfloat16', None, [16148, 16150, 16164, 16048, 16206]),
 ([2147483647, -2147483648], 'auto_select', 'normal', [5], 'bfloat16', None, [49126, 16378, 16331, 49085, 48792]),
 ([2147483647, -2147483648], 'auto_select', 'truncated_normal', [5], 'bfloat16', None,
  [49126, 16378, 16331, 49085, 16356]),
 ([2147483647, -2147483648], 'auto_select', 'uniform', [3, 3], 'float32', None,
  [1022505600, 1063365782, 1036299552, 1052571824, 1030589664, 1065019498, 1061319204, 1063284250, 1059648218]),
 ([2147483647, -2147483648], 'auto_select', 'normal', [3, 3], 'float32', None,
  [3219529366, 1073338962, 1070273352, 3216802758, 3197652562, 1075284318, 3204764708, 1057466810, 3208027796]),
 ([2147483647, -2147483648], 'auto_select', 'truncated_normal', [3, 3], 'float32', None,
  [3219529366, 1073338962, 1070273352, 3216802758, 1071901425, 3207775158, 1033433377, 1069335833, 3214145614]),
 ([2147483647, -2147483648], 'auto_select', 'uniform', [5], 'float64', None,
  [4597689593490747992, 4605095153099504728, 4602029689189814484, 4590172017600458960, 4598709267041171888]),
 ([2147483647, -2147483648], 'auto_select', 'normal', [5], 'float64', None,
  [13833647959387044769, 4596174453366955381, 4603332344258033731, 4607628821371686476, 4607619886367175320]),
 ([2147483647, -2147483648], 'auto_select', 'truncated_normal', [5], 'float64', None,
  [13833647959387044769, 4596174453366955381, 4601101860892056810, 13810346543706082525, 13804956385586386433]),
 ([2147483647, -2147483648], 'philox', 'uniform_full_int', [5], 'int32', None,
  [100911306, 1810945611, 1166822098, 1252998700, -1299747737]),
 ([2147483647, -2147483648], 'philox', 'uniform_full_int', [5], 'int64', None,
  [7777952174180649162, 5381588439597337298, -6233698535233590169, 1544795204406556946, -6353929894957385363]),
 ([2147483647, -2147483648], 'philox', 'uniform_full_int', [5], 'uint32', None,
  [100911306, 1810945611, 1166822098, 1252998700, 2995219559]),
 ([2147483647, -2147483648], 'philox', 'uniform_full_int', [5], 'uint64', None,
  [7777952174180649162, 5381588439597337298, 12213045538475961447, 1544795204406556946, 12092814178752166253]),
 ([2147483647, -2147483648], 'philox', 'uniform', [7], 'int32', (-10, 10), [-4, 1, 8, -10, 9, 3, 0]),
 ([2147483647, -2147483648], 'philox', 'uniform', [7], 'int64', (-1099511627776, 1125899906842624),
  [528087804790986, 165116889549522, 878740419079271, 804901590481170, 109319053146477, 892646108566028,
   192400384669338]),
 ([2147483647, -2147483648], 'philox', 'uniform', [7], 'int32', (-2147483648, 2147483647),
  [-2046572342, -336538037, -980661550, -894484948, 847735911, 696087605, 1096890642]),
 ([2147483647, -2147483648], 'philox', 'uniform', [7], 'int64', (7, 8), [7, 7, 7, 7, 7, 7, 7])]

DIGESTS = {('normal', 'bfloat16'): 'cccce320c40cd9c5cb0a262024e50c3a7aaae1b8a4d31ea21e2db2c942b96ff6',
 ('normal', 'float16'): 'd30e8413b579636ec387ff5844c998dab72de7afbab77684c6fe385cb6c1c4e0',
 ('normal', 'float32'): '71d26b1bacc96934b82ec71b827fe4618ab6d5085c3335f1533a94fcf699c184',
 ('normal', 'float64'): '2b5d985005cb4caf8d89981db9cbef9af4d4eb9f298be5cc15398e8195f548fc',
 ('truncated_normal', 'bfloat16'): 'd83048b349c4fab3b3ffd8d350c667a88bd95ff814d78233c85c30bd1b6c052d',
 ('truncated_normal', 'float16'): '0e2a1f536743b742f39e88f59054448f5bcae5a54874092c453cf620953e7ac2',
 ('truncated_normal', 'float32'): 'b53d77c00995001e258c773c7dec0273b3eaaf524ae21ed70a0ff2b2eaf2fbd0',
 ('truncated_normal', 'float64'): '0fce1bcc05dc70ae1de0246d5119e373973ca2c18bef29a270b86854d0f173bb',
 ('uniform', 'bfloat16'): 'f538cdcb35a5dbb61c86e45d5d28a441dbeccdf4c96f659bab00ceff61a28033',
 ('uniform', 'float16'): 'd95aee9cf69d6c55b30e1e467443a0b0c193ee6c5ac5806f4435c6ffb2e28b87',
 ('uniform', 'float32'): 'fa19827e1d75ad0bf6aa2a5f7fde48a46bb417b3190efabfc77ee00a939587d7',
 ('uniform', 'float64'): '6e959d1fccb8cf98ab8dc74822f2160d860136078a09df9f17c6fc4b9492d758'}

GLOBAL = [(1,
  [('uniform', [3], 'float32', None, None, [1042880528, 1063700346, 1059161990]),
   ('uniform', [3], 'float32', None, None, [1057134176, 1055069848, 1053895488]),
   ('uniform', [3], 'float32', 5, None, [1044925680, 1022664384, 1052432440]),
   ('uniform', [5], 'float32', 5, None, [1055054044, 1063471018, 1057456048, 1057425306, 1045004104]),
   ('normal', [5], 'float32', None, None, [3203005826, 3201323240, 1060799506, 3211041329, 1050676892]),
   ('normal', [4], 'float32', 5, None, [1051493415, 1071852374, 1068866639, 3177229784]),
   ('truncated_normal', [6], 'float32', None, None,
    [1071175050, 1039475121, 3214166123, 1043382044, 1067483358, 3189065412]),
   ('uniform', [5], 'int32', None, (-3, 10), [9, 1, 8, 9, 5]),
   ('uniform', [3], 'float64', 5, None, [4603262925195945206, 4606456865499484940, 4599299978924381712]),
   ('normal', [3], 'float16', None, None, [48309, 47930, 15036])]),
 (1234,
  [('uniform', [3], 'float32', None, None, [1057602802, 1052421964, 1058334134]),
   ('uniform', [3], 'float32', None, None, [1051104820, 1041106824, 1059448464]),
   ('uniform', [3], 'float32', 5, None, [1057286200, 1048866280, 1050575664]),
   ('uniform', [5], 'float32', 5, None, [1014690176, 1049922332, 1061893684, 1052588932, 1059696366]),
   ('normal', [5], 'float32', None, None, [1064662536, 3198830583, 3179432521, 1019724542, 1044909967]),
   ('normal', [4], 'float32', 5, None, [1066555484, 3179203929, 1068195490, 1061046892]),
   ('truncated_normal', [6], 'float32', None, None,
    [3200343547, 3193701939, 1070237847, 3210309118, 1069305093, 3214774638]),
   ('uniform', [5], 'int32', None, (-3, 10), [3, 4, 1, 7, 7]),
   ('uniform', [3], 'float64', 5, None, [4594692953427467216, 4602260124123706144, 4605473676790439088]),
   ('normal', [3], 'float16', None, None, [46366, 15726, 45324])]),
 (2147483653,
  [('uniform', [3], 'float32', None, None, [1039683328, 1043987736, 1058323996]),
   ('uniform', [3], 'float32', None, None, [1062273330, 1063672244, 1058170326]),
   ('uniform', [3], 'float32', 5, None, [1058962896, 1027962816, 1052858816]),
   ('uniform', [5], 'float32', 5, None, [1033522128, 1063996954, 1063019046, 1053528616, 1064564756]),
   ('normal', [5], 'float32', None, None, [1052995941, 3217999389, 3211482289, 3182238040, 3221772416]),
   ('normal', [4], 'float32', 5, None, [1049989125, 1064257292, 3214385205, 3208438654]),
   ('truncated_normal', [6], 'float32', None, None,
    [3205514237, 1056980398, 1046364629, 1054170581, 3194264334, 1048869486]),
   ('uniform', [5], 'int32', None, (-3, 10), [3, 8, 2, 3, 3]),
   ('uniform', [3], 'float64', 5, None, [4606757805851694972, 4581739792029036800, 4598812748299212024]),
   ('normal', [3], 'float16', None, None, [6449, 46530, 13544])])]

NO_GLOBAL = [[1055451492, 1050722724, 1027463008, 1056001704], [1058952450, 1045800856, 1031497728, 1058601724]]


# --- Philox4x32-10 itself ------------------------------------------------------------------------------

# Known-answer vectors of the Random123 reference implementation (kat_vectors, philox4x32 10 rounds).
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


def test_philox_known_answers():
    counters = np.array([c for c, _, _ in KAT], np.uint32)
    keys = np.array([k for _, k, _ in KAT], np.uint32)
    out = philox.philox_4x32_10(counters, keys)
    assert out.dtype == np.uint32
    assert out.tolist() == [e for _, _, e in KAT]
    # One key for all rows gives the same as that key repeated.
    assert philox.philox_4x32_10(counters[:1], keys[0]).tolist() == [KAT[0][2]]


def test_philox_rejects_bad_shapes():
    with pytest.raises(ValueError, match="counter"):
        philox.philox_4x32_10(np.zeros((3,), np.uint32), np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="key"):
        philox.philox_4x32_10(np.zeros((3, 4), np.uint32), np.zeros(3, np.uint32))


def test_state_is_counter_then_key():
    # tf.random.Generator.from_state([5, 6, 7], 'philox').uniform_full_int([4], tf.uint32): one Philox block
    # at counter 5 + 6 * 2**64 under key 7; the state moves 4 * 256 blocks on.
    values, state = philox.generator_draw([5, 6, 7], [4], np.uint32, "uniform_full_int")
    assert values.tolist() == [3499833800, 879707692, 2237112904, 3726740070]
    assert state.tolist() == [5 + 1024, 6, 7]
    block = philox.philox_4x32_10(np.array([[5, 0, 6, 0]], np.uint32), np.array([7, 0], np.uint32))
    assert block.tolist() == [values.tolist()]


def test_counter_carries_into_high_word():
    position = philox.PhiloxPosition(3, 2 ** 64 - 1)
    words = philox.philox_words(position, 2)
    expected = philox.philox_4x32_10(np.array([[0xFFFFFFFF, 0xFFFFFFFF, 0, 0], [0, 0, 1, 0]], np.uint32),
                                      np.array([3, 0], np.uint32))
    assert words.tolist() == expected.tolist()
    assert philox.PhiloxPosition(0, 2 ** 128 - 1).skip(1).counter == 0


# --- tf.random.Generator ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed, state", [(0, [0, 0, 0]), (1, [1, 0, 0]), (42, [42, 0, 0]), (-1, [-1, -1, -1]),
                                         (2 ** 40 + 5, [2 ** 40 + 5, 0, 0]), (2 ** 64 + 3, [3, 1, 0]),
                                         ([7, 8], [0, 7, 8])])
def test_generator_from_seed_state(seed, state):
    assert philox.generator_from_seed(seed).tolist() == state


def test_generator_normal_headline():
    # tf.random.Generator.from_seed(1).normal([3]) prints [0.43842274 -0.53439844 -0.07710262].
    values, _ = philox.generator_draw(philox.generator_from_seed(1), [3], np.float32, "normal")
    assert values.tolist() == np.array([0.43842274, -0.53439844, -0.07710262], np.float32).tolist()


# The schedule each recorded generator ran: (method, shape, dtype, (minval, maxval) or None).
SCHEDULE = [("normal", [3], "float32", None), ("uniform", [5], "float16", None),
            ("truncated_normal", [7], "bfloat16", None), ("uniform", [2, 3], "float64", None),
            ("uniform", [9], "int32", (-5, 17)), ("normal", [5], "float64", None),
            ("uniform_full_int", [3], "uint64", None), ("truncated_normal", [3], "float64", None),
            ("normal", [6], "bfloat16", None), ("uniform", [4], "int64", (-2 ** 40, 2 ** 41 + 3)),
            ("truncated_normal", [9], "float32", None), ("normal", [1], "float16", None),
            ("uniform", [11], "bfloat16", None), ("uniform_full_int", [5], "int32", None),
            ("uniform", [3], "float32", None), ("truncated_normal", [2, 2], "float16", None)]


@pytest.mark.parametrize("seed, steps", GENERATOR_RUNS, ids=[str(run[0]) for run in GENERATOR_RUNS])
def test_generator_consecutive_draws(seed, steps):
    state = philox.generator_from_seed(seed)
    for (dist, shape, dtype, bounds), (expected, expected_state) in zip(SCHEDULE, steps):
        minval, maxval = bounds or (None, None)
        values, state = philox.generator_draw(state, shape, DTYPES[dtype], dist, minval, maxval)
        assert values.shape == tuple(shape) and values.dtype == DTYPES[dtype]
        assert bits(values) == expected, (seed, dist, dtype)
        assert state.tolist() == expected_state, (seed, dist, dtype)


def test_generator_empty_draw_keeps_state():
    values, state = philox.generator_draw(philox.generator_from_seed(5), [0], np.float32, "normal")
    assert values.shape == (0,) and state.tolist() == [5, 0, 0]


@pytest.mark.parametrize("seed, expected_states, expected_after", SPLITS)
def test_generator_split(seed, expected_states, expected_after):
    states, state = philox.generator_split(philox.generator_from_seed(seed), 3)
    assert [s.tolist() for s in states] == expected_states
    assert state.tolist() == expected_after


# --- stateless ops ----------------------------------------------------------------------------------------

def test_stateless_key_counter():
    # StatelessRandomGetKeyCounter([1, 2]) -> key [10413732777507651514], counter [0, 17830669156045600267];
    # int32 and int64 seeds [-1, -2] both give key [4310311667330486438], counter [0, 6518117832910326126].
    assert philox.stateless_position([1, 2]) == philox.PhiloxPosition(10413732777507651514,
                                                                      17830669156045600267 << 64)
    assert philox.stateless_position(np.array([-1, -2], np.int32)) == philox.PhiloxPosition(
        4310311667330486438, 6518117832910326126 << 64)


@pytest.mark.parametrize("seed, alg, dist, shape, dtype, bounds, expected", STATELESS,
                         ids=[f"{c[0]}-{c[2]}-{c[4]}-{c[5]}" for c in STATELESS])
def test_stateless(seed, alg, dist, shape, dtype, bounds, expected):
    minval, maxval = bounds or (None, None)
    values = philox.stateless(seed, shape, DTYPES[dtype], dist, alg=alg, minval=minval, maxval=maxval)
    assert values.shape == tuple(shape) and values.dtype == DTYPES[dtype]
    assert bits(values) == expected


def test_stateless_auto_select_and_philox_agree():
    a = philox.stateless([3, 9], [13], np.float32, "normal", alg="auto_select")
    b = philox.stateless([3, 9], [13], np.float32, "normal", alg="philox")
    assert bits(a) == bits(b)


@pytest.mark.parametrize("dist, dtype", sorted(DIGESTS))
def test_stateless_large_sample_digest(dist, dtype):
    # tf.random.stateless_<dist>([4099], seed=[11, -12], dtype=<dtype>): exercises every Box-Muller branch
    # (all angle quadrants, the rejection loop crossing block boundaries) and the odd tail group.
    values = philox.stateless([11, -12], [4099], DTYPES[dtype], dist)
    data = np.asarray(bits(values), {2: "<u2", 4: "<u4", 8: "<u8"}[values.dtype.itemsize]).tobytes()
    assert hashlib.sha256(data).hexdigest() == DIGESTS[(dist, dtype)]


def test_unsupported_requests():
    with pytest.raises(ValueError, match="Philox"):
        philox.stateless([1, 2], [3], np.float32, "uniform", alg="threefry")
    with pytest.raises(TypeError, match="floating"):
        philox.stateless([1, 2], [3], np.int32, "normal")
    with pytest.raises(ValueError, match="minval and maxval"):
        philox.stateless([1, 2], [3], np.int32, "uniform")
    with pytest.raises(ValueError, match="minval < maxval"):
        philox.stateless([1, 2], [3], np.int64, "uniform", minval=4, maxval=4)
    with pytest.raises(ValueError, match="minval < maxval"):
        philox.stateless([1, 2], [3], np.int32, "uniform", minval=5, maxval=-5)
    with pytest.raises(ValueError, match="shape"):
        philox.stateless([1, 2, 3], [3], np.float32, "uniform")


# --- seeded stateful kernels (tf.random.set_seed + tf.random.uniform/normal/...) -----------------------

_MAXINT32 = 2 ** 31 - 1


class EagerSeeds:
    """TensorFlow's eager seed rules as tf.random.uniform & co. apply them: an op without a seed takes the
    next draw of Python's random.Random(global seed); both seeds are reduced mod 2**31 - 1; only an op
    seed means graph seed 87654321; (0, 0) becomes (0, 2**31 - 1). Each (op, dtype, seed, seed2) is one
    cached kernel whose Philox stream continues across calls."""

    def __init__(self, global_seed):
        self.global_seed = global_seed
        self.rng = random.Random(global_seed)
        self.kernels = {}

    def stream(self, op, dtype, op_seed):
        if self.global_seed is None:
            seeds = (87654321, op_seed % _MAXINT32)
        else:
            if op_seed is None:
                op_seed = self.rng.randint(0, _MAXINT32)
            seeds = (self.global_seed % _MAXINT32, op_seed % _MAXINT32)
            if seeds == (0, 0):
                seeds = (0, _MAXINT32)
        key = (op, dtype, seeds)
        if key not in self.kernels:
            self.kernels[key] = philox.SeededStream(*seeds)
        return self.kernels[key]


@pytest.mark.parametrize("global_seed, calls", GLOBAL, ids=[str(run[0]) for run in GLOBAL])
def test_global_seed_path(global_seed, calls):
    seeds = EagerSeeds(global_seed)
    for dist, shape, dtype, op_seed, bounds, expected in calls:
        minval, maxval = bounds or (None, None)
        op = "uniform_int" if bounds else dist
        values = seeds.stream(op, dtype, op_seed).draw(shape, DTYPES[dtype], dist, minval, maxval)
        assert bits(values) == expected, (global_seed, dist, dtype, op_seed)


def test_op_seed_without_global_seed():
    seeds = EagerSeeds(None)
    first = seeds.stream("uniform", "float32", 9).draw([4], np.float32, "uniform")
    second = seeds.stream("uniform", "float32", 9).draw([4], np.float32, "uniform")
    assert [bits(first), bits(second)] == NO_GLOBAL

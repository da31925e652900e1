<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>&amp;What</source>
        <translation>内容(&amp;W)</translation>
    </message>
    <message>
        <source>The current figure (vector in SVG/PDF), the whole tab as shown, or the raw matrix of the current figure at full resolution</source>
        <translation>当前图像（SVG/PDF 为矢量图）、当前显示的整个标签页，或当前图像的原始矩阵（全分辨率）</translation>
    </message>
    <message>
        <source>current figure</source>
        <translation>当前图像</translation>
    </message>
    <message>
        <source>whole panel</source>
        <translation>整个面板</translation>
    </message>
    <message>
        <source>raw matrix</source>
        <translation>原始矩阵</translation>
    </message>
    <message>
        <source>&amp;Format</source>
        <translation>格式(&amp;F)</translation>
    </message>
    <message>
        <source>PNG (raster at the chosen DPI), SVG and PDF (vector); matrices as .npy (float64, C order) or .csv</source>
        <translation>PNG（按所选 DPI 生成的位图）、SVG 和 PDF（矢量图）；矩阵导出为 .npy（float64，C 顺序）或 .csv</translation>
    </message>
    <message>
        <source>&amp;Resolution</source>
        <translation>分辨率(&amp;R)</translation>
    </message>
    <message>
        <source>PNG dots per inch: the on-screen size (96 dpi) scaled by dpi / 96</source>
        <translation>PNG 每英寸点数：屏幕尺寸（96 dpi）按 dpi / 96 缩放</translation>
    </message>
    <message>
        <source> dpi</source>
        <translation> dpi</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Where to write; the write is atomic, a failed export leaves no partial file</source>
        <translation>写入位置；写入是原子操作，导出失败不会留下不完整的文件</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
</context>
<context>
    <name>QMenu</name>
    <message>
        <source>&amp;Presets</source>
        <translation>预设(&amp;P)</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>No position</source>
        <translation>无位置编码</translation>
    </message>
    <message>
        <source>Sinusoidal</source>
        <translation>正弦</translation>
    </message>
    <message>
        <source>Learned table</source>
        <translation>可学习表</translation>
    </message>
    <message>
        <source>Shaw</source>
        <translation>Shaw</translation>
    </message>
    <message>
        <source>Transformer-XL</source>
        <translation>Transformer-XL</translation>
    </message>
    <message>
        <source>T5</source>
        <translation>T5</translation>
    </message>
    <message>
        <source>DeBERTa</source>
        <translation>DeBERTa</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>URPE</source>
        <translation>URPE</translation>
    </message>
    <message>
        <source>MLP encoding</source>
        <translation>MLP 编码</translation>
    </message>
    <message>
        <source>binary: sinusoids as bits</source>
        <translation>binary：正弦即二进制位</translation>
    </message>
    <message>
        <source>offset: P[i+δ] = Mδ·P[i]</source>
        <translation>offset：P[i+δ] = Mδ·P[i]</translation>
    </message>
    <message>
        <source>cost: CNN, RNN, attention</source>
        <translation>cost：CNN、RNN 与注意力</translation>
    </message>
    <message>
        <source>distance: against j − i</source>
        <translation>distance：随 j − i 的变化</translation>
    </message>
    <message>
        <source>depth: stacked layers</source>
        <translation>depth：堆叠多层</translation>
    </message>
    <message>
        <source>binary — sinusoids as binary digits</source>
        <translation>binary — 正弦函数如同二进制数位</translation>
    </message>
    <message>
        <source>offset — a fixed linear map shifts P</source>
        <translation>offset — 一个固定的线性映射平移 P</translation>
    </message>
    <message>
        <source>cost — CNN, RNN and self-attention</source>
        <translation>cost — CNN、RNN 与自注意力</translation>
    </message>
    <message>
        <source>distance — attention against j − i</source>
        <translation>distance — 注意力随 j − i 的变化</translation>
    </message>
    <message>
        <source>depth — stacking layers (exercise 1)</source>
        <translation>depth — 堆叠多层（练习 1）</translation>
    </message>
    <message>
        <source>Stacking attention layers: pure attention averages tokens, and a stack of it makes every token the same vector (rank collapse, Dong et al. 2021): the uniformity residual ‖X − 1·x̄&lt;sup&gt;T&lt;/sup&gt;‖&lt;sub&gt;F&lt;/sub&gt;/‖X‖&lt;sub&gt;F&lt;/sub&gt; falls doubly exponentially. Residual connections keep it, and with it the position a linear probe can read (R²). &lt;span style=&apos;color:#666&apos;&gt;d2l §Positional Encoding, exercise 1: “what could the possible issues be?”&lt;/span&gt;</source>
        <translation>堆叠注意力层：纯注意力对词元取平均，多层堆叠后每个词元都变成同一个向量（秩坍缩，Dong et al. 2021）：均匀性残差 ‖X − 1·x̄&lt;sup&gt;T&lt;/sup&gt;‖&lt;sub&gt;F&lt;/sub&gt;/‖X‖&lt;sub&gt;F&lt;/sub&gt; 以双指数速度下降。残差连接能保住它，也就保住了线性探针可读出的位置信息（R²）。&lt;span style=&apos;color:#666&apos;&gt;d2l §位置编码，练习 1：“可能会出现什么问题？”&lt;/span&gt;</translation>
    </message>
    <message>
        <source>N = %1 positions need B = ⌈log₂ N⌉ = %2 bits, periods 2 … %3; the %4 sinusoid pairs have periods %5 … %6.</source>
        <translation>N = %1 个位置需要 B = ⌈log₂ N⌉ = %2 位，周期为 2 … %3；%4 对正弦函数的周期为 %5 … %6。</translation>
    </message>
    <message>
        <source>relative residual = %1 (%2 M&lt;sub&gt;δ&lt;/sub&gt;, %3), max |residual| = %4; P·P&lt;sup&gt;T&lt;/sup&gt; Toeplitz deviation = %5 of max |G| = %6</source>
        <translation>相对残差 = %1（%2 M&lt;sub&gt;δ&lt;/sub&gt;，%3），最大 |残差| = %4；P·P&lt;sup&gt;T&lt;/sup&gt; 的 Toeplitz 偏差 = %5，最大 |G| = %6</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>least-squares</source>
        <translation>最小二乘</translation>
    </message>
    <message>
        <source>; rotated q·k deviation from m − n = %1</source>
        <translation>；旋转后的 q·k 与仅依赖 m − n 的偏差 = %1</translation>
    </message>
    <message>
        <source> — N − δ ≤ d: any table fits exactly</source>
        <translation> — N − δ ≤ d：任何表都能精确拟合</translation>
    </message>
    <message>
        <source>attention = RNN at n = d/2 = %1, attention = CNN at n = kd/2 = %2; sequential operations: CNN 1, RNN n, attention 1.</source>
        <translation>注意力 = RNN 于 n = d/2 = %1，注意力 = CNN 于 n = kd/2 = %2；顺序操作数：CNN 1，RNN n，注意力 1。</translation>
    </message>
    <message>
        <source> Measured: time ∝ n&lt;sup&gt;%1&lt;/sup&gt; for n ≥ %2 (%3).</source>
        <translation> 实测：n ≥ %2 时耗时 ∝ n&lt;sup&gt;%1&lt;/sup&gt;（%3）。</translation>
    </message>
    <message>
        <source>position term: %1</source>
        <translation>位置项：%1</translation>
    </message>
    <message>
        <source>; ALiBi slopes m&lt;sub&gt;h&lt;/sub&gt; = %1</source>
        <translation>；ALiBi 斜率 m&lt;sub&gt;h&lt;/sub&gt; = %1</translation>
    </message>
    <message>
        <source>; T5 buckets start at |r| = %1</source>
        <translation>；T5 各桶起始于 |r| = %1</translation>
    </message>
    <message>
        <source>; RoPE bound %1 at r = 0, %2 at r = %3</source>
        <translation>；RoPE 上界在 r = 0 处为 %1，在 r = %3 处为 %2</translation>
    </message>
    <message>
        <source>uniformity residual %1 at layer 1, %2 at layer %3; effective rank %4 → %5; position R² (held out) %6 → %7</source>
        <translation>均匀性残差：第 1 层 %1，第 %3 层 %2；有效秩 %4 → %5；位置 R²（留出集）%6 → %7</translation>
    </message>
    <message>
        <source>Written in binary, bit &lt;i&gt;b&lt;/i&gt; of the positions 0, 1, 2, … flips every 2&lt;sup&gt;&lt;i&gt;b&lt;/i&gt;&lt;/sup&gt; numbers: the low bits change fast, the high bits slowly. The columns of the sinusoidal table do the same with continuous values: pair &lt;i&gt;j&lt;/i&gt; oscillates with ω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; = base&lt;sup&gt;−2&lt;i&gt;j&lt;/i&gt;/&lt;i&gt;d&lt;/i&gt;&lt;/sup&gt;, period 2π/ω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;, slower as &lt;i&gt;j&lt;/i&gt; grows. &lt;span style=&apos;color:#666&apos;&gt;d2l §Positional Encoding, “Absolute Positional Information”.&lt;/span&gt;</source>
        <translation>把位置 0、1、2、… 写成二进制，第 &lt;i&gt;b&lt;/i&gt; 位每隔 2&lt;sup&gt;&lt;i&gt;b&lt;/i&gt;&lt;/sup&gt; 个数翻转一次：低位变化快，高位变化慢。正弦表的各列以连续值做同样的事：第 &lt;i&gt;j&lt;/i&gt; 对以 ω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; = base&lt;sup&gt;−2&lt;i&gt;j&lt;/i&gt;/&lt;i&gt;d&lt;/i&gt;&lt;/sup&gt; 振荡，周期为 2π/ω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;，&lt;i&gt;j&lt;/i&gt; 越大越慢。&lt;span style=&apos;color:#666&apos;&gt;d2l §位置编码，“绝对位置信息”。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>For a fixed offset δ, every (sin, cos) pair at position &lt;i&gt;i&lt;/i&gt; + δ is the pair at &lt;i&gt;i&lt;/i&gt; turned by the angle δω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;, whatever &lt;i&gt;i&lt;/i&gt; is: P[&lt;i&gt;i&lt;/i&gt;+δ] = M&lt;sub&gt;δ&lt;/sub&gt;·P[&lt;i&gt;i&lt;/i&gt;] with M&lt;sub&gt;δ&lt;/sub&gt; made of 2×2 rotations. A table that is not sinusoidal (learned, mlp) gets the best least-squares M&lt;sub&gt;δ&lt;/sub&gt; instead, and keeps a large residual. For the same reason P·P&lt;sup&gt;T&lt;/sup&gt; depends only on &lt;i&gt;i&lt;/i&gt; − &lt;i&gt;j&lt;/i&gt;. &lt;span style=&apos;color:#666&apos;&gt;d2l §Positional Encoding, “Relative Positional Information”.&lt;/span&gt;</source>
        <translation>对固定的偏移 δ，位置 &lt;i&gt;i&lt;/i&gt; + δ 上的每个 (sin, cos) 对都是位置 &lt;i&gt;i&lt;/i&gt; 上的那一对旋转角度 δω&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; 的结果，与 &lt;i&gt;i&lt;/i&gt; 无关：P[&lt;i&gt;i&lt;/i&gt;+δ] = M&lt;sub&gt;δ&lt;/sub&gt;·P[&lt;i&gt;i&lt;/i&gt;]，其中 M&lt;sub&gt;δ&lt;/sub&gt; 由 2×2 旋转矩阵组成。不是正弦的表（learned、mlp）只能得到最小二乘意义下最好的 M&lt;sub&gt;δ&lt;/sub&gt;，并留下较大的残差。同样的原因，P·P&lt;sup&gt;T&lt;/sup&gt; 只取决于 &lt;i&gt;i&lt;/i&gt; − &lt;i&gt;j&lt;/i&gt;。&lt;span style=&apos;color:#666&apos;&gt;d2l §位置编码，“相对位置信息”。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Mapping &lt;i&gt;n&lt;/i&gt; tokens of width &lt;i&gt;d&lt;/i&gt; (a multiply-add counts as 2 FLOPs): a convolution with kernel &lt;i&gt;k&lt;/i&gt; costs 2&lt;i&gt;knd&lt;/i&gt;², a recurrent layer 2&lt;i&gt;nd&lt;/i&gt;² with &lt;i&gt;n&lt;/i&gt; sequential steps, self-attention 4&lt;i&gt;n&lt;/i&gt;²&lt;i&gt;d&lt;/i&gt; with a path of length 1 between any two tokens. Attention is the cheapest below &lt;i&gt;n&lt;/i&gt; = &lt;i&gt;d&lt;/i&gt;/2 and the most expensive for long sequences. &lt;span style=&apos;color:#666&apos;&gt;d2l §Self-Attention, “Comparing CNNs, RNNs, and Self-Attention”.&lt;/span&gt;</source>
        <translation>映射 &lt;i&gt;n&lt;/i&gt; 个宽度为 &lt;i&gt;d&lt;/i&gt; 的词元（一次乘加计为 2 FLOPs）：卷积核大小为 &lt;i&gt;k&lt;/i&gt; 的卷积层花费 2&lt;i&gt;knd&lt;/i&gt;²，循环层花费 2&lt;i&gt;nd&lt;/i&gt;² 且需 &lt;i&gt;n&lt;/i&gt; 个顺序步骤，自注意力花费 4&lt;i&gt;n&lt;/i&gt;²&lt;i&gt;d&lt;/i&gt;，任意两个词元之间的路径长度为 1。&lt;i&gt;n&lt;/i&gt; &amp;lt; &lt;i&gt;d&lt;/i&gt;/2 时注意力最便宜，序列很长时最昂贵。&lt;span style=&apos;color:#666&apos;&gt;d2l §自注意力，“比较卷积神经网络、循环神经网络和自注意力”。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Every token sees every other in one step; how strongly depends on the scheme. Averaged over query rows &lt;i&gt;i&lt;/i&gt;, the mean attention weight A[&lt;i&gt;i&lt;/i&gt;, &lt;i&gt;i&lt;/i&gt;+&lt;i&gt;r&lt;/i&gt;] and the position term of the logits against the offset &lt;i&gt;r&lt;/i&gt; = &lt;i&gt;j&lt;/i&gt; − &lt;i&gt;i&lt;/i&gt;; with RoPE&apos;s long-term decay (2/&lt;i&gt;d&lt;/i&gt;)·Σ&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;|S&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;(&lt;i&gt;r&lt;/i&gt;)|, S&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; = Σ&lt;sub&gt;&lt;i&gt;k&lt;/i&gt;&amp;lt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; e&lt;sup&gt;&lt;i&gt;ir&lt;/i&gt;θ&lt;sub&gt;&lt;i&gt;k&lt;/i&gt;&lt;/sub&gt;&lt;/sup&gt;. &lt;span style=&apos;color:#666&apos;&gt;d2l §Self-Attention; RoFormer §3.4.3.&lt;/span&gt;</source>
        <translation>每个词元一步就能看到所有其他词元；看得多重取决于方案。对查询行 &lt;i&gt;i&lt;/i&gt; 取平均：平均注意力权重 A[&lt;i&gt;i&lt;/i&gt;, &lt;i&gt;i&lt;/i&gt;+&lt;i&gt;r&lt;/i&gt;] 以及 logits 的位置项随偏移 &lt;i&gt;r&lt;/i&gt; = &lt;i&gt;j&lt;/i&gt; − &lt;i&gt;i&lt;/i&gt; 的变化；RoPE 另有远程衰减 (2/&lt;i&gt;d&lt;/i&gt;)·Σ&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;|S&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;(&lt;i&gt;r&lt;/i&gt;)|，S&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; = Σ&lt;sub&gt;&lt;i&gt;k&lt;/i&gt;&amp;lt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; e&lt;sup&gt;&lt;i&gt;ir&lt;/i&gt;θ&lt;sub&gt;&lt;i&gt;k&lt;/i&gt;&lt;/sub&gt;&lt;/sup&gt;。&lt;span style=&apos;color:#666&apos;&gt;d2l §自注意力；RoFormer §3.4.3。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>pooled mode (n = %1): the terms, n × n, are not computed, only the logits</source>
        <translation>池化模式（n = %1）：不计算各个 n × n 分项，只计算 logits</translation>
    </message>
</context>
<context>
    <name>pe::ComparisonView</name>
    <message>
        <source>compare with</source>
        <translation>对比方案</translation>
    </message>
    <message>
        <source>Scheme B: the same inputs, sizes, seed and options under this scheme; the right map is A − B</source>
        <translation>方案 B：相同的输入、尺寸、种子和选项，换用此方案；右侧热力图为 A − B</translation>
    </message>
    <message>
        <source>more schemes</source>
        <translation>更多方案</translation>
    </message>
    <message>
        <source>Show further schemes below, each on the same inputs, tensor and head</source>
        <translation>在下方显示更多方案，均使用相同的输入、张量和头</translation>
    </message>
    <message>
        <source>all schemes</source>
        <translation>全部方案</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>attention weights</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>logits</source>
        <translation>logits</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>more schemes (%1)</source>
        <translation>更多方案（%1）</translation>
    </message>
    <message>
        <source>A: %1, head %2</source>
        <translation>A：%1，头 %2</translation>
    </message>
    <message>
        <source>%1, head %2</source>
        <translation>%1，头 %2</translation>
    </message>
    <message>
        <source>computing %1…</source>
        <translation>正在计算 %1…</translation>
    </message>
    <message>
        <source>computing B…</source>
        <translation>正在计算 B…</translation>
    </message>
    <message>
        <source>B: %1, head %2</source>
        <translation>B：%1，头 %2</translation>
    </message>
    <message>
        <source>A − B (%1 − %2)</source>
        <translation>A − B（%1 − %2）</translation>
    </message>
    <message>
        <source>same colour scale</source>
        <translation>统一色标</translation>
    </message>
    <message>
        <source>A, B and the further schemes share one colour scale, so that a colour is the same value on every map; off, each map spans its own values</source>
        <translation>A、B 及其他方案共用一个色标，使同一颜色在每张图上表示同一数值；关闭时，每张图按各自的数值范围着色</translation>
    </message>
    <message>
        <source>position term of the logits</source>
        <translation>logits 的位置项</translation>
    </message>
    <message>
        <source>no %1 for this trace: it takes the whole n × n logits (not pooled) and the weights they were computed with</source>
        <translation>此 trace 没有%1：它需要完整的 n × n logits（未池化）以及计算它们所用的权重</translation>
    </message>
    <message>
        <source>The part of the logits that position makes, for each scheme on the same inputs: the sum of its position terms (absolute: e·p + p·e + p·p; T5, ALiBi: the bias; Shaw: the k-term; Transformer-XL: (b)+(d); DeBERTa: c2p + p2c; RoPE: what the rotation changes); 0 for none, and for URPE without a bias (its positions multiply the weights). Not for pooled traces (above 2048 positions).</source>
        <translation>在相同输入下，每种方案中由位置产生的那部分 logits：其各位置项之和（绝对编码：e·p + p·e + p·p；T5、ALiBi：偏置；Shaw：k 项；Transformer-XL：(b)+(d)；DeBERTa：c2p + p2c；RoPE：旋转带来的变化）；none 以及无偏置的 URPE 为 0（URPE 的位置作用于权重）。不适用于池化的 trace（超过 2048 个位置）。</translation>
    </message>
    <message>
        <source>not computed</source>
        <translation>未计算</translation>
    </message>
    <message>
        <source>%1 cannot be computed for A&apos;s parameters: %2</source>
        <translation>%1 无法在 A 的参数下计算：%2</translation>
    </message>
    <message>
        <source>B (%1)</source>
        <translation>B（%1）</translation>
    </message>
    <message>
        <source>computing A&apos;s %1…</source>
        <translation>正在计算 A 的%1…</translation>
    </message>
    <message>
        <source>%1 waits for memory that other views hold: %2</source>
        <translation>%1 正在等待其他视图释放内存：%2</translation>
    </message>
</context>
<context>
    <name>pe::HeatmapView</name>
    <message>
        <source>Cell under the mouse: query i, key j, their tokens and the value</source>
        <translation>鼠标所指的单元格：查询 i、键 j、对应的词元及数值</translation>
    </message>
    <message>
        <source>key position j</source>
        <translation>键位置 j</translation>
    </message>
    <message>
        <source>query position i</source>
        <translation>查询位置 i</translation>
    </message>
</context>
<context>
    <name>pe::InsightsFigures</name>
    <message>
        <source>this machine: press Measure</source>
        <translation>本机：请按“测量”</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>正在计算…</translation>
    </message>
    <message>
        <source>bit b of position i</source>
        <translation>位置 i 的第 b 位</translation>
    </message>
    <message>
        <source>bit b</source>
        <translation>第 b 位</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>⌊i/2^b⌋ mod 2</source>
        <translation>⌊i/2^b⌋ mod 2</translation>
    </message>
    <message>
        <source>sinusoidal P, same colours</source>
        <translation>正弦 P，同样的配色</translation>
    </message>
    <message>
        <source>column c of P</source>
        <translation>P 的第 c 列</translation>
    </message>
    <message>
        <source>P[i, c]</source>
        <translation>P[i, c]</translation>
    </message>
    <message>
        <source>periods: bits and sinusoids</source>
        <translation>周期：二进制位与正弦函数</translation>
    </message>
    <message>
        <source>bit b / pair j</source>
        <translation>第 b 位 / 第 j 对</translation>
    </message>
    <message>
        <source>period (positions)</source>
        <translation>周期（位置数）</translation>
    </message>
    <message>
        <source>bit b: 2^(b+1)</source>
        <translation>第 b 位：2^(b+1)</translation>
    </message>
    <message>
        <source>pair j: 2π/ω_j</source>
        <translation>第 j 对：2π/ω_j</translation>
    </message>
    <message>
        <source>M_δ, exact rotations</source>
        <translation>M_δ，精确旋转</translation>
    </message>
    <message>
        <source>M_δ, least squares</source>
        <translation>M_δ，最小二乘</translation>
    </message>
    <message>
        <source>column of P[i]</source>
        <translation>P[i] 的列</translation>
    </message>
    <message>
        <source>column of P[i+δ]</source>
        <translation>P[i+δ] 的列</translation>
    </message>
    <message>
        <source>M_δ</source>
        <translation>M_δ</translation>
    </message>
    <message>
        <source>residual P[i+δ] − M_δ·P[i]</source>
        <translation>残差 P[i+δ] − M_δ·P[i]</translation>
    </message>
    <message>
        <source>relative residual %1</source>
        <translation>相对残差 %1</translation>
    </message>
    <message>
        <source>column c</source>
        <translation>第 c 列</translation>
    </message>
    <message>
        <source>residual</source>
        <translation>残差</translation>
    </message>
    <message>
        <source>column 0: P[i+δ] against M_δ·P[i]</source>
        <translation>第 0 列：P[i+δ] 与 M_δ·P[i] 对比</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>P[i+δ, 0]</source>
        <translation>P[i+δ, 0]</translation>
    </message>
    <message>
        <source>(M_δ·P[i])_0</source>
        <translation>(M_δ·P[i])_0</translation>
    </message>
    <message>
        <source>‖residual row i‖</source>
        <translation>‖残差第 i 行‖</translation>
    </message>
    <message>
        <source>P·Pᵀ along each diagonal r = j − i</source>
        <translation>沿每条对角线 r = j − i 的 P·Pᵀ</translation>
    </message>
    <message>
        <source>offset r = j − i</source>
        <translation>偏移 r = j − i</translation>
    </message>
    <message>
        <source>mean of the diagonal</source>
        <translation>对角线均值</translation>
    </message>
    <message>
        <source>max deviation from it</source>
        <translation>与均值的最大偏差</translation>
    </message>
    <message>
        <source>RoPE: (R_m q)·(R_n k) deviation</source>
        <translation>RoPE：(R_m q)·(R_n k) 的偏差</translation>
    </message>
    <message>
        <source>FLOPs of one layer, d = %1, k = %2</source>
        <translation>单层的 FLOPs，d = %1，k = %2</translation>
    </message>
    <message>
        <source>sequence length n</source>
        <translation>序列长度 n</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>CNN 2knd²</source>
        <translation>CNN 2knd²</translation>
    </message>
    <message>
        <source>RNN 2nd²</source>
        <translation>RNN 2nd²</translation>
    </message>
    <message>
        <source>attention = RNN</source>
        <translation>注意力 = RNN</translation>
    </message>
    <message>
        <source>attention = CNN</source>
        <translation>注意力 = CNN</translation>
    </message>
    <message>
        <source>maximum path length and sequential steps</source>
        <translation>最大路径长度与顺序步骤数</translation>
    </message>
    <message>
        <source>layers / steps</source>
        <translation>层数 / 步数</translation>
    </message>
    <message>
        <source>attention path 1</source>
        <translation>注意力路径 1</translation>
    </message>
    <message>
        <source>RNN sequential steps n</source>
        <translation>RNN 顺序步骤 n</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <source>measured: time ∝ n^%1 (n ≥ %2)</source>
        <translation>实测：耗时 ∝ n^%1（n ≥ %2）</translation>
    </message>
    <message>
        <source>measured attention layer</source>
        <translation>实测的注意力层</translation>
    </message>
    <message>
        <source>%1, d = %2</source>
        <translation>%1，d = %2</translation>
    </message>
    <message>
        <source>fit n^%1</source>
        <translation>拟合 n^%1</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>mean over heads</source>
        <translation>各头的平均</translation>
    </message>
    <message>
        <source>mean attention weight A[i, i+r]</source>
        <translation>平均注意力权重 A[i, i+r]</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>mean position term</source>
        <translation>平均位置项</translation>
    </message>
    <message>
        <source>, dotted: log buckets</source>
        <translation>，虚线：对数桶</translation>
    </message>
    <message>
        <source>relative distance r</source>
        <translation>相对距离 r</translation>
    </message>
    <message>
        <source>(2/d)·Σ|S_j(r)|</source>
        <translation>(2/d)·Σ|S_j(r)|</translation>
    </message>
    <message>
        <source>upper bound</source>
        <translation>上界</translation>
    </message>
    <message>
        <source>layer (0 = input)</source>
        <translation>层（0 = 输入）</translation>
    </message>
    <message>
        <source>effective rank of the output</source>
        <translation>输出的有效秩</translation>
    </message>
    <message>
        <source>exp(entropy of σ/Σσ)</source>
        <translation>exp(σ/Σσ 的熵)</translation>
    </message>
    <message>
        <source>effective rank</source>
        <translation>有效秩</translation>
    </message>
    <message>
        <source>uniformity residual ‖X − 1·x̄ᵀ‖/‖X‖</source>
        <translation>均匀性残差 ‖X − 1·x̄ᵀ‖/‖X‖</translation>
    </message>
    <message>
        <source>residual (log)</source>
        <translation>残差（对数）</translation>
    </message>
    <message>
        <source>uniformity residual</source>
        <translation>均匀性残差</translation>
    </message>
    <message>
        <source>mean attention entropy</source>
        <translation>平均注意力熵</translation>
    </message>
    <message>
        <source>nats</source>
        <translation>nats</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>ln N (uniform attention)</source>
        <translation>ln N（均匀注意力）</translation>
    </message>
    <message>
        <source>position read by a linear probe</source>
        <translation>线性探针读出的位置</translation>
    </message>
    <message>
        <source>R²</source>
        <translation>R²</translation>
    </message>
    <message>
        <source>R² (all positions)</source>
        <translation>R²（全部位置）</translation>
    </message>
    <message>
        <source>R² held out (odd positions)</source>
        <translation>R² 留出集（奇数位置）</translation>
    </message>
    <message>
        <source>attention 4n²d</source>
        <translation>注意力 4n²d</translation>
    </message>
    <message>
        <source>CNN path ⌈(n−1)/(k−1)⌉</source>
        <translation>CNN 路径 ⌈(n−1)/(k−1)⌉</translation>
    </message>
    <message>
        <source>RNN path n−1</source>
        <translation>RNN 路径 n−1</translation>
    </message>
    <message>
        <source>RoPE long-term decay (RoFormer §3.4.3)</source>
        <translation>RoPE 的远程衰减（RoFormer §3.4.3）</translation>
    </message>
    <message>
        <source>every scheme: mean attention weight (N = %1)</source>
        <translation>所有方案：平均注意力权重（N = %1）</translation>
    </message>
    <message>
        <source>weight, mean over heads</source>
        <translation>权重（各头平均）</translation>
    </message>
    <message>
        <source>Preparing %1 million cells…</source>
        <translation>正在准备 %1 百万个单元格…</translation>
    </message>
</context>
<context>
    <name>pe::InsightsPanel</name>
    <message>
        <source>&amp;Measure</source>
        <translation>测量(&amp;M)</translation>
    </message>
    <message>
        <source>residual</source>
        <translation>残差连接</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Which argument of the chapter to show</source>
        <translation>显示该章的哪一个论点</translation>
    </message>
    <message>
        <source>The shift δ: P[i+δ] against M_δ·P[i]</source>
        <translation>平移量 δ：P[i+δ] 与 M_δ·P[i] 对比</translation>
    </message>
    <message>
        <source>The CNN&apos;s kernel size k</source>
        <translation>CNN 的卷积核大小 k</translation>
    </message>
    <message>
        <source>Measure n = 128, 256, … up to this (pooled above 2048)</source>
        <translation>测量 n = 128、256、… 直到此值（2048 以上为池化模式）</translation>
    </message>
    <message>
        <source>Time one attention layer of the current scheme on this machine&apos;s fast CPU engine and fit the exponent of time against n</source>
        <translation>在本机的快速 CPU 引擎上为当前方案的一个注意力层计时，并拟合耗时随 n 变化的指数</translation>
    </message>
    <message>
        <source>Layers L, each with its own seeded weights</source>
        <translation>层数 L，每层有各自按种子生成的权重</translation>
    </message>
    <message>
        <source>X ← X + f(X) instead of X ← f(X)</source>
        <translation>用 X ← X + f(X) 代替 X ← f(X)</translation>
    </message>
    <message>
        <source>no norm</source>
        <translation>无归一化</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>LayerNorm</translation>
    </message>
    <message>
        <source>RMSNorm</source>
        <translation>RMSNorm</translation>
    </message>
    <message>
        <source>Pre-norm before attention and MLP (no gain, no bias)</source>
        <translation>在注意力和 MLP 之前做 Pre-norm（无增益、无偏置）</translation>
    </message>
    <message>
        <source>A ReLU MLP d → 4d → d after each attention</source>
        <translation>每个注意力之后接一个 ReLU MLP：d → 4d → d</translation>
    </message>
    <message>
        <source>δ</source>
        <translation>δ</translation>
    </message>
    <message>
        <source>kernel k</source>
        <translation>卷积核 k</translation>
    </message>
    <message>
        <source>measure up to n</source>
        <translation>测量至 n</translation>
    </message>
    <message>
        <source>layers L</source>
        <translation>层数 L</translation>
    </message>
    <message>
        <source>Cancel the page&apos;s computation</source>
        <translation>取消此页的计算</translation>
    </message>
    <message>
        <source>Time to compute the page (on its worker) and to fill its figures</source>
        <translation>计算此页（在其工作线程上）和填充其图像所用的时间</translation>
    </message>
    <message>
        <source>Page</source>
        <translation>页面</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>measuring…</source>
        <translation>正在测量…</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>正在计算…</translation>
    </message>
    <message>
        <source>%1 ms + %2 draw</source>
        <translation>%1 ms + 绘制 %2</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
</context>
<context>
    <name>pe::LabPanel</name>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>shift-k: output token i is input token i − k; copy; reverse; first-token: every output is the first input; sort</source>
        <translation>shift-k：输出词元 i 为输入词元 i − k；copy：复制；reverse：反转；first-token：每个输出都是第一个输入；sort：排序</translation>
    </message>
    <message>
        <source>k of shift-k</source>
        <translation>shift-k 中的 k</translation>
    </message>
    <message>
        <source>Shift k</source>
        <translation>位移 k</translation>
    </message>
    <message>
        <source>Vocabulary size of the task&apos;s tokens</source>
        <translation>任务词元的词表大小</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>词表</translation>
    </message>
    <message>
        <source>Model and training</source>
        <translation>模型与训练</translation>
    </message>
    <message>
        <source>Scheme</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Attention layers</source>
        <translation>注意力层数</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Width d</source>
        <translation>宽度 d</translation>
    </message>
    <message>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>Heads (d must be a multiple)</source>
        <translation>头数（d 须为其整数倍）</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Training length L; evaluation at L, 1.5L, 2L, 4L</source>
        <translation>训练长度 L；在 L、1.5L、2L、4L 上评估</translation>
    </message>
    <message>
        <source>Length L</source>
        <translation>长度 L</translation>
    </message>
    <message>
        <source>Optimiser steps</source>
        <translation>优化器步数</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Sequences per step</source>
        <translation>每步的序列数</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>Compare &amp;schemes</source>
        <translation>对比方案(&amp;S)</translation>
    </message>
    <message>
        <source>Train the same task with every scheme, same seed and budget, one after another</source>
        <translation>用每种方案依次训练同一任务，随机种子与训练预算相同</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Open in views</source>
        <translation>在视图中打开(&amp;O)</translation>
    </message>
    <message>
        <source>Show the trained model in every view and the stepper, on the task&apos;s sample input (Weights = trained)</source>
        <translation>在各视图和逐步演示中显示训练好的模型，输入为任务的示例（权重 = 已训练）</translation>
    </message>
    <message>
        <source>Which layer of the trained model the views show</source>
        <translation>视图显示训练好的模型的哪一层</translation>
    </message>
    <message>
        <source>layer </source>
        <translation>层 </translation>
    </message>
    <message>
        <source>Sa&amp;ve model…</source>
        <translation>保存模型(&amp;V)…</translation>
    </message>
    <message>
        <source>Write model.safetensors and run.json into a folder (the same files as pe-explorer-cli train)</source>
        <translation>将 model.safetensors 和 run.json 写入文件夹（与 pe-explorer-cli train 生成的文件相同）</translation>
    </message>
    <message>
        <source>&amp;Load model…</source>
        <translation>加载模型(&amp;L)…</translation>
    </message>
    <message>
        <source>Open a model.safetensors saved by the lab or by pe-explorer-cli train</source>
        <translation>打开由实验室或 pe-explorer-cli train 保存的 model.safetensors</translation>
    </message>
    <message>
        <source>Save the model into</source>
        <translation>将模型保存到</translation>
    </message>
    <message>
        <source>saved model.safetensors and run.json in %1</source>
        <translation>已将 model.safetensors 和 run.json 保存到 %1</translation>
    </message>
    <message>
        <source>not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>Load a lab model</source>
        <translation>加载实验室模型</translation>
    </message>
    <message>
        <source>Lab models (*.safetensors)</source>
        <translation>实验室模型 (*.safetensors)</translation>
    </message>
    <message>
        <source>the lab&apos;s engine is not part of this build</source>
        <translation>此构建不包含实验室的训练引擎</translation>
    </message>
    <message>
        <source>a run is in progress</source>
        <translation>正在训练中</translation>
    </message>
    <message>
        <source>not loaded: %1</source>
        <translation>未加载：%1</translation>
    </message>
    <message>
        <source>no trained model to save</source>
        <translation>没有可保存的训练好的模型</translation>
    </message>
    <message>
        <source>loaded: %1</source>
        <translation>已加载：%1</translation>
    </message>
    <message>
        <source>The lab&apos;s training engine (pe_lab, libtorch) is not part of this build.</source>
        <translation>此构建不包含实验室的训练引擎（pe_lab，libtorch）。</translation>
    </message>
    <message>
        <source>Train one model with these settings</source>
        <translation>用这些设置训练一个模型</translation>
    </message>
    <message>
        <source>training %1 …</source>
        <translation>正在训练 %1 …</translation>
    </message>
    <message>
        <source>%1: step %2 of %3, loss %4, accuracy %5</source>
        <translation>%1：第 %2/%3 步，损失 %4，准确率 %5</translation>
    </message>
    <message>
        <source>done: %1</source>
        <translation>完成：%1</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>cross-entropy</source>
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>training accuracy</source>
        <translation>训练准确率</translation>
    </message>
    <message>
        <source>token accuracy</source>
        <translation>词元准确率</translation>
    </message>
    <message>
        <source>accuracy against evaluation length</source>
        <translation>准确率随评估长度的变化</translation>
    </message>
    <message>
        <source>length</source>
        <translation>长度</translation>
    </message>
    <message>
        <source>no positions</source>
        <translation>无位置信息</translation>
    </message>
    <message>
        <source>A learned table (and URPE&apos;s C) has no rows past the training length: the model cannot run at %1 tokens</source>
        <translation>可学习表（以及 URPE 的 C）没有超出训练长度的行：模型无法在 %1 个词元上运行</translation>
    </message>
    <message>
        <source>step</source>
        <translation>训练步数</translation>
    </message>
    <message>
        <source>Train a model, or compare every scheme, on the task at the left. Each model is then evaluated on sequences of its training length L and longer: here %1, %2, %3 and %4 tokens. This table and the plot beside it give its token accuracy at each length: how far what it learned about positions generalises.</source>
        <translation>在左侧的任务上训练一个模型，或比较所有方案。每个模型随后在其训练长度 L 及更长的序列上评估：此处为 %1、%2、%3 和 %4 个词元。此表及其旁边的图给出各长度上的词元准确率：模型学到的位置知识能推广多远。</translation>
    </message>
</context>
<context>
    <name>pe::MainWindow</name>
    <message>
        <source>pe-explorer</source>
        <translation>pe-explorer</translation>
    </message>
    <message>
        <source>Com&amp;pare</source>
        <translation>对比(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Stepper</source>
        <translation>逐步演示(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Lab</source>
        <translation>实验室(&amp;L)</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel the running computation (Esc)</source>
        <translation>取消正在进行的计算（Esc）</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Export figure (PNG/SVG/PDF)…</source>
        <translation>导出图像（PNG/SVG/PDF）(&amp;E)…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>Export whole &amp;panel…</source>
        <translation>导出整个面板(&amp;P)…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+P</source>
        <translation>Ctrl+Shift+P</translation>
    </message>
    <message>
        <source>Export &amp;matrix (.npy/.csv)…</source>
        <translation>导出矩阵（.npy/.csv）(&amp;M)…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+E</source>
        <translation>Ctrl+Shift+E</translation>
    </message>
    <message>
        <source>&amp;Copy figure</source>
        <translation>复制图像(&amp;C)</translation>
    </message>
    <message>
        <source>Ctrl+Shift+C</source>
        <translation>Ctrl+Shift+C</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Encoding</source>
        <translation>位置编码(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Relative</source>
        <translation>相对位置(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Logit terms</source>
        <translation>Logit 分项(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Attention</source>
        <translation>注意力(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Colour map</source>
        <translation>色图(&amp;C)</translation>
    </message>
    <message>
        <source>auto: diverging RdBu centred on 0 for signed data, viridis otherwise</source>
        <translation>auto：有正有负的数据用以 0 为中心的发散色图 RdBu，否则用 viridis</translation>
    </message>
    <message>
        <source>Compute &amp;backend</source>
        <translation>计算后端(&amp;B)</translation>
    </message>
    <message>
        <source>fast CPU</source>
        <translation>快速 CPU</translation>
    </message>
    <message>
        <source>reference CPU (exact)</source>
        <translation>参考 CPU（精确）</translation>
    </message>
    <message>
        <source>OpenGL compute (GPU)</source>
        <translation>OpenGL 计算（GPU）</translation>
    </message>
    <message>
        <source>CPU &amp;threads</source>
        <translation>CPU 线程(&amp;T)</translation>
    </message>
    <message>
        <source>one per core (%1)</source>
        <translation>每核一个（%1）</translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n 个线程</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Pooling of large matrices</source>
        <translation>大矩阵的池化(&amp;P)</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>Lan&amp;guage</source>
        <translation>语言(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;System language</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>Takes effect when pe-explorer is restarted</source>
        <translation>重新启动 pe-explorer 后生效</translation>
    </message>
    <message>
        <source>The new language takes effect when pe-explorer is restarted.</source>
        <translation>新的语言将在重新启动 pe-explorer 后生效。</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>About this &amp;scheme</source>
        <translation>关于此方案(&amp;S)</translation>
    </message>
    <message>
        <source>About this scheme</source>
        <translation>关于此方案</translation>
    </message>
    <message>
        <source>&amp;Tour of the tabs</source>
        <translation>标签页导览(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;About pe-explorer</source>
        <translation>关于 pe-explorer(&amp;A)</translation>
    </message>
    <message>
        <source>About pe-explorer</source>
        <translation>关于 pe-explorer</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>%1 (%2 ms)</source>
        <translation>%1（%2 ms）</translation>
    </message>
    <message>
        <source>compute %1 ms | render %2 ms | %3</source>
        <translation>计算 %1 ms | 渲染 %2 ms | %3</translation>
    </message>
    <message>
        <source>gl: %1</source>
        <translation>gl：%1</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>pe-explorer session (*.json)</source>
        <translation>pe-explorer 会话 (*.json)</translation>
    </message>
    <message>
        <source>Session opened; %1</source>
        <translation>已打开会话；%1</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>&amp;Insights</source>
        <translation>洞察(&amp;I)</translation>
    </message>
    <message>
        <source>La&amp;b</source>
        <translation>实验室(&amp;B)</translation>
    </message>
    <message>
        <source>S&amp;quare cells</source>
        <translation>正方形单元格(&amp;Q)</translation>
    </message>
    <message>
        <source>Draw every map with square cells (as matplotlib&apos;s imshow), centred in its box; off: maps fill their boxes</source>
        <translation>以正方形单元格绘制每张热图（如 matplotlib 的 imshow），在其区域内居中；关闭时热图填满其区域</translation>
    </message>
</context>
<context>
    <name>pe::ParamsPanel</name>
    <message>
        <source>Scheme and sizes</source>
        <translation>方案与尺寸</translation>
    </message>
    <message>
        <source>Position scheme. Absolute: X = E + P (sinusoidal, learned, mlp: a small network of Fourier features of p). Relative: Shaw (a_ij = q_i·(k_j + w^K_clip(j−i,k))), Transformer-XL, T5 (bias b[bucket(j−i)]), DeBERTa (c2c + c2p + p2c), RoPE (rotate q, k by position), ALiBi (−m_h |i−j|), URPE (softmax(S) ⊙ C[j−i]).</source>
        <translation>位置编码方案。绝对位置：X = E + P（sinusoidal 正弦、learned 可学习、mlp：以 p 的傅里叶特征为输入的小型网络）。相对位置：Shaw（a_ij = q_i·(k_j + w^K_clip(j−i,k))）、Transformer-XL、T5（偏置 b[bucket(j−i)]）、DeBERTa（c2c + c2p + p2c）、RoPE（按位置旋转 q、k）、ALiBi（−m_h |i−j|）、URPE（softmax(S) ⊙ C[j−i]）。</translation>
    </message>
    <message>
        <source>&amp;Scheme</source>
        <translation>方案(&amp;S)</translation>
    </message>
    <message>
        <source>Sequence length n (logarithmic: n = 2^(s/100)); 1 … 16384 input tokens, special tokens come on top</source>
        <translation>序列长度 n（对数刻度：n = 2^(s/100)）；1 … 16384 个输入词元，特殊词元另计</translation>
    </message>
    <message>
        <source>Number of input tokens n (1 … 16384); [CLS]/[SEP] are added on top</source>
        <translation>输入词元数 n（1 … 16384）；[CLS]/[SEP] 另外添加</translation>
    </message>
    <message>
        <source>&amp;Length n</source>
        <translation>长度 n(&amp;L)</translation>
    </message>
    <message>
        <source>Model width d; Q = X W_q with W_q [d, d]; head width d_h = d / heads</source>
        <translation>模型宽度 d；Q = X W_q，W_q 为 [d, d]；每个头的宽度 d_h = d / 头数</translation>
    </message>
    <message>
        <source>Width &amp;d</source>
        <translation>宽度 d(&amp;D)</translation>
    </message>
    <message>
        <source>Number of heads h; d must be a multiple of h (d_h = d / h)</source>
        <translation>头数 h；d 必须是 h 的整数倍（d_h = d / h）</translation>
    </message>
    <message>
        <source>&amp;Heads</source>
        <translation>头数(&amp;H)</translation>
    </message>
    <message>
        <source>Scheme options</source>
        <translation>方案选项</translation>
    </message>
    <message>
        <source>No options: no position information at all.</source>
        <translation>无选项：完全没有位置信息。</translation>
    </message>
    <message>
        <source>Base b of the frequencies ω_m = b^(−2m/d) (sinusoidal), θ_m = b^(−2m/d_rot) (RoPE) or ω_k = b^(−k/F) (mlp features)</source>
        <translation>频率的底数 b：ω_m = b^(−2m/d)（正弦）、θ_m = b^(−2m/d_rot)（RoPE）或 ω_k = b^(−k/F)（mlp 特征）</translation>
    </message>
    <message>
        <source>&amp;Base</source>
        <translation>底数(&amp;B)</translation>
    </message>
    <message>
        <source>Sinusoid layout: interleaved PE[p,2m] = sin(pω_m), PE[p,2m+1] = cos(pω_m); concat [sin | cos]; t2t ω_m = exp(−m ln(b)/(d/2 − 1))</source>
        <translation>正弦的排布：interleaved（交错）PE[p,2m] = sin(pω_m)，PE[p,2m+1] = cos(pω_m)；concat（拼接）[sin | cos]；t2t ω_m = exp(−m ln(b)/(d/2 − 1))</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>排布</translation>
    </message>
    <message>
        <source>Clip distance k: Shaw index clip(j − i, −k, k) + k ∈ [0, 2k]; DeBERTa v1 span k</source>
        <translation>截断距离 k：Shaw 的索引 clip(j − i, −k, k) + k ∈ [0, 2k]；DeBERTa v1 的跨度 k</translation>
    </message>
    <message>
        <source>Clip &amp;k</source>
        <translation>截断 k(&amp;K)</translation>
    </message>
    <message>
        <source>RoPE pairs: interleaved (2m, 2m+1) as in the paper, or half (m, m + d_rot/2) as in GPT-NeoX/LLaMA</source>
        <translation>RoPE 的配对：interleaved（交错）(2m, 2m+1)，同原论文；或 half（前后两半）(m, m + d_rot/2)，同 GPT-NeoX/LLaMA</translation>
    </message>
    <message>
        <source>RoPE pairs</source>
        <translation>RoPE 配对</translation>
    </message>
    <message>
        <source>Rotated features per head d_rot (partial rotary); 0 = all d_h; features [d_rot, d_h) pass through</source>
        <translation>每个头中旋转的特征数 d_rot（部分旋转）；0 = 全部 d_h；特征 [d_rot, d_h) 原样通过</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>RoPE dims</source>
        <translation>RoPE 维数</translation>
    </message>
    <message>
        <source>RoPE context stretching by s: none; pi (position interpolation, Chen et al. 2023): angle = (p/s)·θ_m; ntk (NTK-aware base): θ&apos;_m = b&apos;^(−2m/d_rot) with b&apos; = b·s^(d_rot/(d_rot−2)), needs d_rot ≥ 4</source>
        <translation>RoPE 上下文按 s 拉伸：none（不拉伸）；pi（位置插值，Chen et al. 2023）：角度 = (p/s)·θ_m；ntk（NTK-aware 底数）：θ&apos;_m = b&apos;^(−2m/d_rot)，其中 b&apos; = b·s^(d_rot/(d_rot−2))，需要 d_rot ≥ 4</translation>
    </message>
    <message>
        <source>RoPE stretch</source>
        <translation>RoPE 拉伸</translation>
    </message>
    <message>
        <source>Stretch s &gt; 0 of pi / ntk, e.g. L&apos;/L to run a model trained at length L at L&apos;; s = 1 changes nothing</source>
        <translation>pi / ntk 的拉伸系数 s &gt; 0，例如取 L&apos;/L，让在长度 L 上训练的模型运行于长度 L&apos;；s = 1 时不变</translation>
    </message>
    <message>
        <source>RoPE stretch s</source>
        <translation>RoPE 拉伸 s</translation>
    </message>
    <message>
        <source>URPE base bias: none, or a T5 bucket bias added to the logits before softmax(S) ⊙ C</source>
        <translation>URPE 的基础偏置：none（无），或在 softmax(S) ⊙ C 之前加到 logits 上的 T5 分桶偏置</translation>
    </message>
    <message>
        <source>URPE bias</source>
        <translation>URPE 偏置</translation>
    </message>
    <message>
        <source>T5 num_buckets: half exact (|r| &lt; B/4 per direction), half logarithmic up to max_distance</source>
        <translation>T5 num_buckets：一半为精确桶（每个方向 |r| &lt; B/4），一半为对数桶，直到 max_distance</translation>
    </message>
    <message>
        <source>T5 buckets</source>
        <translation>T5 桶数</translation>
    </message>
    <message>
        <source>T5 max_distance: |j − i| ≥ this shares the last bucket</source>
        <translation>T5 max_distance：|j − i| ≥ 此值时共用最后一个桶</translation>
    </message>
    <message>
        <source>T5 max distance</source>
        <translation>T5 最大距离</translation>
    </message>
    <message>
        <source>unidirectional</source>
        <translation>单向</translation>
    </message>
    <message>
        <source>T5 decoder buckets: only j ≤ i is distinguished (bidirectional = false)</source>
        <translation>T5 解码器的分桶：只区分 j ≤ i（bidirectional = false）</translation>
    </message>
    <message>
        <source>ALiBi bias: symmetric −m_h |i − j|, or the paper&apos;s causal −m_h (i − j); slopes m_h = 2^(−8h/H)</source>
        <translation>ALiBi 偏置：对称的 −m_h |i − j|，或论文中因果的 −m_h (i − j)；斜率 m_h = 2^(−8h/H)</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>c2p</source>
        <translation>c2p</translation>
    </message>
    <message>
        <source>DeBERTa content-to-position term q^c_i · k^r_δ(i,j)</source>
        <translation>DeBERTa 的内容到位置项 q^c_i · k^r_δ(i,j)</translation>
    </message>
    <message>
        <source>p2c</source>
        <translation>p2c</translation>
    </message>
    <message>
        <source>DeBERTa position-to-content term k^c_j · q^r_δ(j,i); the logits are scaled by 1/√(d_h (1 + terms))</source>
        <translation>DeBERTa 的位置到内容项 k^c_j · q^r_δ(j,i)；logits 按 1/√(d_h (1 + 项数)) 缩放</translation>
    </message>
    <message>
        <source>DeBERTa terms</source>
        <translation>DeBERTa 项</translation>
    </message>
    <message>
        <source>p2c index: the released code&apos;s δ(i, j) or the paper&apos;s δ(j, i)</source>
        <translation>p2c 索引：官方代码的 δ(i, j)，或论文的 δ(j, i)</translation>
    </message>
    <message>
        <source>p2c index</source>
        <translation>p2c 索引</translation>
    </message>
    <message>
        <source>log buckets (v2/v3)</source>
        <translation>对数分桶（v2/v3）</translation>
    </message>
    <message>
        <source>DeBERTa v2/v3 log buckets: span = position_buckets (a 2·span × d relative table), exact for |i − j| ≤ position_buckets / 2, logarithmic up to max_relative_positions</source>
        <translation>DeBERTa v2/v3 的对数分桶：跨度 = position_buckets（2·跨度 × d 的相对位置表），|i − j| ≤ position_buckets / 2 时精确，更远处按对数分桶，直到 max_relative_positions</translation>
    </message>
    <message>
        <source>DeBERTa position_buckets (v2/v3)</source>
        <translation>DeBERTa position_buckets（v2/v3）</translation>
    </message>
    <message>
        <source>DeBERTa buckets</source>
        <translation>DeBERTa 桶数</translation>
    </message>
    <message>
        <source>DeBERTa max_relative_positions (v2/v3)</source>
        <translation>DeBERTa max_relative_positions（v2/v3）</translation>
    </message>
    <message>
        <source>DeBERTa max pos</source>
        <translation>DeBERTa 最大位置</translation>
    </message>
    <message>
        <source>Transformer-XL clamp_len: relative distances beyond are clamped; 0 = off</source>
        <translation>Transformer-XL clamp_len：超过此值的相对距离被截断；0 = 关闭</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>TXL clamp</source>
        <translation>TXL 截断</translation>
    </message>
    <message>
        <source>Rows P_max of the generated learned table (GPT-2: n_ctx = 1024); n must not exceed it</source>
        <translation>生成的可学习表的行数 P_max（GPT-2：n_ctx = 1024）；n 不能超过它</translation>
    </message>
    <message>
        <source>Learned rows</source>
        <translation>可学习表行数</translation>
    </message>
    <message>
        <source>mlp encoding: F Fourier frequencies, φ(p) = [sin(p·ω_k), cos(p·ω_k)] for k &lt; F, ω_k = b^(−k/F); P = GELU(φ·W1 + b1)·W2 + b2 with W1 [2F, H], W2 [H, d]</source>
        <translation>mlp 编码：F 个傅里叶频率，φ(p) = [sin(p·ω_k), cos(p·ω_k)]（k &lt; F），ω_k = b^(−k/F)；P = GELU(φ·W1 + b1)·W2 + b2，其中 W1 为 [2F, H]，W2 为 [H, d]</translation>
    </message>
    <message>
        <source>MLP features F</source>
        <translation>MLP 特征数 F</translation>
    </message>
    <message>
        <source>mlp encoding: hidden width H of P = GELU(φ·W1 + b1)·W2 + b2 (exact GELU 0.5·x·(1 + erf(x/√2))); defined at every position</source>
        <translation>mlp 编码：P = GELU(φ·W1 + b1)·W2 + b2 的隐藏层宽度 H（精确 GELU 0.5·x·(1 + erf(x/√2))）；在每个位置上都有定义</translation>
    </message>
    <message>
        <source>MLP hidden H</source>
        <translation>MLP 隐藏层 H</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Normaliser N(S) of each row: softmax exp(s)/Σexp; exp (unnormalised); l2 s/‖s‖; relu² relu(s)²/n; relu² visible relu(s)²/#visible</source>
        <translation>每行的归一化函数 N(S)：softmax exp(s)/Σexp；exp（不归一化）；l2 s/‖s‖；relu² relu(s)²/n；relu² visible relu(s)²/#可见</translation>
    </message>
    <message>
        <source>&amp;Normaliser</source>
        <translation>归一化(&amp;N)</translation>
    </message>
    <message>
        <source>Mask: none, or causal (key j &gt; query i gets −∞ before the normaliser)</source>
        <translation>掩码：none（无），或 causal（因果：键 j &gt; 查询 i 时，在归一化之前置为 −∞）</translation>
    </message>
    <message>
        <source>&amp;Mask</source>
        <translation>掩码(&amp;M)</translation>
    </message>
    <message>
        <source>Valid length L: keys at positions ≥ L are padding (masked); counts [CLS]/[SEP]; −1 = all valid</source>
        <translation>有效长度 L：位置 ≥ L 的键为填充（被掩码）；计入 [CLS]/[SEP]；−1 = 全部有效</translation>
    </message>
    <message>
        <source>Valid length</source>
        <translation>有效长度</translation>
    </message>
    <message>
        <source>[CLS]</source>
        <translation>[CLS]</translation>
    </message>
    <message>
        <source>Prepend [CLS] at position 0; input tokens move to 1 … n</source>
        <translation>在位置 0 前置 [CLS]；输入词元移至 1 … n</translation>
    </message>
    <message>
        <source>[SEP]</source>
        <translation>[SEP]</translation>
    </message>
    <message>
        <source>Append [SEP] as the last position</source>
        <translation>在最后一个位置追加 [SEP]</translation>
    </message>
    <message>
        <source>Special tokens</source>
        <translation>特殊词元</translation>
    </message>
    <message>
        <source>Seed of every generated weight and embedding (xoshiro256**, one stream per tensor name), 0 … 2⁶⁴−1: the same seed gives the same numbers everywhere</source>
        <translation>所有生成的权重和嵌入的随机种子（xoshiro256**，每个张量名一个随机流），0 … 2⁶⁴−1：相同的种子在任何地方都给出相同的数值</translation>
    </message>
    <message>
        <source>S&amp;eed</source>
        <translation>种子(&amp;E)</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>identity projections</source>
        <translation>恒等投影</translation>
    </message>
    <message>
        <source>trained</source>
        <translation>已训练</translation>
    </message>
    <message>
        <source>Attention weights W_q, W_k, W_v, W_o: seeded random; identity (W = I, so Q = K = V = X and the maps show the scheme&apos;s own structure, position tables stay seeded); or a trained lab model.</source>
        <translation>注意力权重 W_q、W_k、W_v、W_o：随机（按种子生成）；恒等（W = I，于是 Q = K = V = X，热力图显示方案本身的结构，位置表仍按种子生成）；或实验室训练好的模型。</translation>
    </message>
    <message>
        <source>&amp;Weights</source>
        <translation>权重(&amp;W)</translation>
    </message>
    <message>
        <source>Arithmetic of the forward pass: float32 or float64</source>
        <translation>前向计算的数值精度：float32 或 float64</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>sample sentence</source>
        <translation>示例句子</translation>
    </message>
    <message>
        <source>typed text</source>
        <translation>输入文本</translation>
    </message>
    <message>
        <source>n identical tokens</source>
        <translation>n 个相同词元</translation>
    </message>
    <message>
        <source>all zeros</source>
        <translation>全零</translation>
    </message>
    <message>
        <source>Input tokens; the token list is repeated or cut to exactly n tokens. Embeddings E come from a seeded per-token table. n identical tokens is the probe of docs/encodings.md §12; all zeros sets E = 0, so only P and the position terms are left.</source>
        <translation>输入词元；词元列表被重复或截断为恰好 n 个。嵌入 E 来自按种子生成的词元表。“n 个相同词元”即 docs/encodings.md §12 中的探针；“全零”令 E = 0，只留下 P 和位置项。</translation>
    </message>
    <message>
        <source>&amp;Input</source>
        <translation>输入(&amp;I)</translation>
    </message>
    <message>
        <source>Built-in sentence (tokenized into words and punctuation; CJK by character)</source>
        <translation>内置句子（按单词和标点切分为词元；中日韩文字按字切分）</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>type a sentence</source>
        <translation>输入一个句子</translation>
    </message>
    <message>
        <source>Your text, tokenized into words and punctuation (CJK by character)</source>
        <translation>你输入的文本，按单词和标点切分为词元（中日韩文字按字切分）</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>%1 options</source>
        <translation>选项：%1</translation>
    </message>
    <message>
        <source>Span &amp;k</source>
        <translation>跨度 k(&amp;K)</translation>
    </message>
    <message>
        <source>Trained: %1</source>
        <translation>已训练：%1</translation>
    </message>
    <message>
        <source>No trained model yet: train one in the Lab tab or load a .safetensors model there.</source>
        <translation>尚无训练好的模型：请在“实验室”标签页中训练一个，或在那里加载 .safetensors 模型。</translation>
    </message>
</context>
<context>
    <name>pe::ProbeBox</name>
    <message>
        <source>Probe: n identical tokens</source>
        <translation>探针：n 个相同词元</translation>
    </message>
    <message>
        <source>Can this configuration map n identical tokens to distinct outputs? A two-layer toy stack answers it live; the argument is in docs/encodings.md §12.</source>
        <translation>此配置能否把 n 个相同词元映射为互不相同的输出？一个两层的玩具模型实时给出答案；论证见 docs/encodings.md §12。</translation>
    </message>
    <message>
        <source>Shaw keys only (a^V = 0)</source>
        <translation>仅 Shaw 键（a^V = 0）</translation>
    </message>
    <message>
        <source>Run the probe with Shaw&apos;s value table set to zero: only the logits then carry position, and the probe fails (docs/encodings.md §3, §12)</source>
        <translation>将 Shaw 的值表置零后运行探针：此时只有 logits 携带位置信息，探针失败（docs/encodings.md §3、§12）</translation>
    </message>
    <message>
        <source>✔ Can tell positions apart: n identical tokens give distinct output rows.</source>
        <translation>✔ 能区分位置：n 个相同词元得到互不相同的输出行。</translation>
    </message>
    <message>
        <source>✘ Cannot tell positions apart: n identical tokens give identical output rows.</source>
        <translation>✘ 不能区分位置：n 个相同词元得到相同的输出行。</translation>
    </message>
    <message>
        <source>%1&lt;br&gt;&lt;small&gt;Probe: %2 identical tokens through a 2-layer pre-RMSNorm stack in float64; row spread %3 (identical ≤ %4, broken &gt; %5).&lt;/small&gt;</source>
        <translation>%1&lt;br&gt;&lt;small&gt;探针：%2 个相同词元通过一个两层 pre-RMSNorm 模型（float64）；行间差异 %3（相同 ≤ %4，已区分 &gt; %5）。&lt;/small&gt;</translation>
    </message>
    <message>
        <source>This trace&apos;s input tokens differ. Choose the input &lt;i&gt;n identical tokens&lt;/i&gt; (or &lt;i&gt;all zeros&lt;/i&gt;) to watch the probe on it.</source>
        <translation>当前计算的输入词元各不相同。选择输入&lt;i&gt;n 个相同词元&lt;/i&gt;（或&lt;i&gt;全零&lt;/i&gt;）即可在其上观察探针。</translation>
    </message>
    <message>
        <source>output rows</source>
        <translation>输出行</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>max_c |o_i − o_first|</source>
        <translation>max_c |o_i − o_first|</translation>
    </message>
    <message>
        <source>max_c |o_i,c − o_%1,c|</source>
        <translation>max_c |o_i,c − o_%1,c|</translation>
    </message>
    <message>
        <source>This trace (one layer, %1): its %2 input rows are identical; its output rows differ by at most &lt;b&gt;%3&lt;/b&gt;.</source>
        <translation>当前计算（一层，%1）：%2 个输入行完全相同；输出行之间最多相差 &lt;b&gt;%3&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>output rows against the first</source>
        <translation>各输出行与第一行之差</translation>
    </message>
    <message>
        <source>input token i</source>
        <translation>输入词元 i</translation>
    </message>
    <message>
        <source>Probing this configuration (d = %1)…</source>
        <translation>正在探测此配置（d = %1）…</translation>
    </message>
</context>
<context>
    <name>pe::SchemeHelp</name>
    <message>
        <source>&lt;i&gt;Dive into Deep Learning&lt;/i&gt;, “Self-Attention and Positional Encoding” (and its exercises)</source>
        <translation>《动手学深度学习》“自注意力和位置编码”一节（及其练习）</translation>
    </message>
    <message>
        <source>“基于相对位置编码的自注意力机制” (self-attention with relative position representations, explained; 拉格朗月, 2021)</source>
        <translation>“基于相对位置编码的自注意力机制”（拉格朗月，2021）</translation>
    </message>
    <message>
        <source>“相对位置编码Transformer的一个理论缺陷与对策” (a theoretical weakness of relative-position Transformers, and a remedy; Su Jianlin, 2022)</source>
        <translation>“相对位置编码Transformer的一个理论缺陷与对策”（苏剑林，2022）</translation>
    </message>
    <message>
        <source>No position information</source>
        <translation>无位置信息</translation>
    </message>
    <message>
        <source>the baseline of every paper below</source>
        <translation>以下所有论文的基线</translation>
    </message>
    <message>
        <source>Attention with identical tokens: every row is uniform, the layer cannot tell positions apart (only a causal mask can).</source>
        <translation>“注意力”标签页，输入相同词元：每一行都是均匀分布，该层无法区分位置（只有因果掩码可以）。</translation>
    </message>
    <message>
        <source>Sinusoidal encoding</source>
        <translation>正弦位置编码</translation>
    </message>
    <message>
        <source>Learned absolute positions</source>
        <translation>可学习的绝对位置编码</translation>
    </message>
    <message>
        <source>Relative position representations (Shaw)</source>
        <translation>相对位置表示（Shaw）</translation>
    </message>
    <message>
        <source>Relative tab: the clipped index is constant beyond ±k; the stepper shows the value term, which tells identical tokens apart.</source>
        <translation>“相对位置”标签页：截断后的索引在 ±k 之外保持不变；逐步演示显示值项，正是它让相同的词元得以区分。</translation>
    </message>
    <message>
        <source>Transformer-XL relative attention</source>
        <translation>Transformer-XL 相对位置注意力</translation>
    </message>
    <message>
        <source>Logit terms tab: (a)+(c) content, (b)+(d) position; the position term is constant along each diagonal.</source>
        <translation>“Logit 分项”标签页：(a)+(c) 为内容项，(b)+(d) 为位置项；位置项沿每条对角线保持不变。</translation>
    </message>
    <message>
        <source>T5 relative attention bias</source>
        <translation>T5 相对位置注意力偏置</translation>
    </message>
    <message>
        <source>Relative tab: exact buckets near the diagonal, logarithmic ones further out; one learned scalar per bucket and head.</source>
        <translation>“相对位置”标签页：对角线附近为精确桶，更远处为对数桶；每个桶和每个头各有一个可学习的标量。</translation>
    </message>
    <message>
        <source>DeBERTa disentangled attention</source>
        <translation>DeBERTa 解耦注意力</translation>
    </message>
    <message>
        <source>Logit terms tab: c2c, c2p and p2c side by side; DeBERTa-v3 (a preset) uses log buckets.</source>
        <translation>“Logit 分项”标签页：c2c、c2p 和 p2c 并排显示；DeBERTa-v3（一个预设）使用对数分桶。</translation>
    </message>
    <message>
        <source>Rotary position embedding (RoPE)</source>
        <translation>旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <source>Attention with identical tokens: a Toeplitz pattern; Insights → distance shows the long-term decay. Stretch a model with pi / ntk.</source>
        <translation>“注意力”标签页，输入相同词元：呈 Toeplitz 模式；Insights → distance 显示远程衰减。可用 pi / ntk 拉伸模型的上下文。</translation>
    </message>
    <message>
        <source>ALiBi: attention with linear biases</source>
        <translation>ALiBi：带线性偏置的注意力</translation>
    </message>
    <message>
        <source>Relative tab: one slope per head, geometric in h; with identity projections and identical tokens the maps are the bias alone.</source>
        <translation>“相对位置”标签页：每个头一个斜率，随 h 呈几何级数；使用恒等投影和相同词元时，热力图就是偏置本身。</translation>
    </message>
    <message>
        <source>URPE: universal relative position encoding</source>
        <translation>URPE：通用相对位置编码</translation>
    </message>
    <message>
        <source>Stepper, probe stage: with identical tokens plain relative attention gives every position the same output; URPE does not.</source>
        <translation>逐步演示的探针阶段：输入相同词元时，普通的相对位置注意力让每个位置得到相同的输出；URPE 则不会。</translation>
    </message>
    <message>
        <source>mlp: a learnable encoding of Fourier features</source>
        <translation>mlp：基于傅里叶特征的可学习位置编码</translation>
    </message>
    <message>
        <source>the d2l chapter&apos;s exercise 2: a learnable positional encoding</source>
        <translation>d2l 该章的练习 2：可学习的位置编码</translation>
    </message>
    <message>
        <source>Encoding tab: smooth in i and defined at every position, unlike a learned table; compare them in the Lab past the training length.</source>
        <translation>“位置编码”标签页：随 i 平滑变化，并且在每个位置都有定义，这一点与可学习表不同；可在“实验室”中比较两者在超出训练长度时的表现。</translation>
    </message>
    <message>
        <source>&lt;h3&gt;%1&lt;/h3&gt;&lt;p&gt;&lt;b&gt;Formula:&lt;/b&gt; %2&lt;/p&gt;&lt;p&gt;&lt;b&gt;Paper:&lt;/b&gt; %3&lt;/p&gt;&lt;p&gt;&lt;b&gt;What to look at:&lt;/b&gt; %4&lt;/p&gt;&lt;p&gt;&lt;b&gt;Explained in:&lt;/b&gt; %5&lt;/p&gt;&lt;p&gt;Every convention: docs/encodings.md (installed under /usr/share/doc/pe-explorer).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;%1&lt;/h3&gt;&lt;p&gt;&lt;b&gt;公式：&lt;/b&gt;%2&lt;/p&gt;&lt;p&gt;&lt;b&gt;论文：&lt;/b&gt;%3&lt;/p&gt;&lt;p&gt;&lt;b&gt;看什么：&lt;/b&gt;%4&lt;/p&gt;&lt;p&gt;&lt;b&gt;讲解：&lt;/b&gt;%5&lt;/p&gt;&lt;p&gt;所有约定见 docs/encodings.md（安装在 /usr/share/doc/pe-explorer 下）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;pe-explorer %1&lt;/h3&gt;&lt;p&gt;Explore positional encodings and self-attention.&lt;/p&gt;&lt;p&gt;Licence: MIT (see LICENSE).&lt;/p&gt;&lt;p&gt;Built with %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;pe-explorer %1&lt;/h3&gt;&lt;p&gt;探索位置编码与自注意力。&lt;/p&gt;&lt;p&gt;许可证：MIT（见 LICENSE）。&lt;/p&gt;&lt;p&gt;构建所用的库：%2。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Encoding tab: columns of P oscillate more slowly to the right, like the bits of a binary counter; P·Pᵀ depends only on i − j. Logit terms tab: the logits split into e·e + e·p + p·e + p·p; with identity weights p·p depends only on i − j too.</source>
        <translation>“位置编码”标签页：P 的列越往右振荡越慢，就像二进制计数器的各位；P·Pᵀ 只取决于 i − j。“Logit 分项”标签页：logits 拆成 e·e + e·p + p·e + p·p 四项；权重为单位矩阵时，p·p 也只取决于 i − j。</translation>
    </message>
    <message>
        <source>Seeded, the table is noise; train one in the Lab tab and open it to see structure. It has no rows past P&lt;sub&gt;max&lt;/sub&gt;. Logit terms tab: the logits split into content and position terms, e·e + e·p + p·e + p·p.</source>
        <translation>按种子生成时，这张表只是噪声；在“实验室”标签页中训练一个并打开，才能看到结构。它没有超出 P&lt;sub&gt;max&lt;/sub&gt; 的行。“Logit 分项”标签页：logits 拆成内容项与位置项，e·e + e·p + p·e + p·p。</translation>
    </message>
</context>
<context>
    <name>pe::StageStrip</name>
    <message>
        <source>&lt;br&gt;&lt;b&gt;Position enters here.&lt;/b&gt;</source>
        <translation>&lt;br&gt;&lt;b&gt;位置信息在此进入。&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;Not used by this scheme: the input passes through.</source>
        <translation>&lt;br&gt;此方案不使用这一步：输入原样通过。</translation>
    </message>
</context>
<context>
    <name>pe::StepperPanel</name>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Previous stage (Left arrow)</source>
        <translation>上一阶段（左方向键）</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>Next stage (Right arrow)</source>
        <translation>下一阶段（右方向键）</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Step through every stage, one every %1 s (Space)</source>
        <translation>依次播放所有阶段，每 %1 秒一个（空格键）</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Head whose Q, K, V, logits and weights the stages show</source>
        <translation>各阶段显示其 Q、K、V、logits 和权重的头</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>Query in focus: its attention in every head and its logit terms (or click a token, or right-click a row of a map)</source>
        <translation>关注的查询：它在每个头中的注意力及其 logit 分项（也可点击词元，或右键点击热力图的一行）</translation>
    </message>
    <message>
        <source>Export stage…</source>
        <translation>导出阶段…</translation>
    </message>
    <message>
        <source>Write this stage&apos;s matrices as .npy and its figure as PNG into a folder (File ▸ Export acts on the first map)</source>
        <translation>将本阶段的矩阵（.npy）和图像（PNG）写入文件夹（文件 ▸ 导出作用于第一张热力图）</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>The stepper shows sequences of up to %1 positions (this one has %2): lower n to step through it.</source>
        <translation>逐步演示最多显示 %1 个位置的序列（当前为 %2 个）：请减小 n 后再逐步查看。</translation>
    </message>
    <message>
        <source> (pad)</source>
        <translation>（填充）</translation>
    </message>
    <message>
        <source>Stage %1 of %2 · %3</source>
        <translation>阶段 %1/%2 · %3</translation>
    </message>
    <message>
        <source>&lt;i&gt;Not used by %1: %2&lt;/i&gt;</source>
        <translation>&lt;i&gt;%1 不使用此步：%2&lt;/i&gt;</translation>
    </message>
    <message>
        <source>shapes: %1</source>
        <translation>形状：%1</translation>
    </message>
    <message>
        <source>— nothing here for %1: the input passes through unchanged —</source>
        <translation>— %1 在此无操作：输入原样通过 —</translation>
    </message>
    <message>
        <source> (grey: −∞)</source>
        <translation>（灰色：−∞）</translation>
    </message>
    <message>
        <source>head %1 · %2</source>
        <translation>头 %1 · %2</translation>
    </message>
    <message>
        <source>query position i</source>
        <translation>查询位置 i</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>feature (in)</source>
        <translation>特征（输入）</translation>
    </message>
    <message>
        <source>key position j</source>
        <translation>键位置 j</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>feature (out)</source>
        <translation>特征（输出）</translation>
    </message>
    <message>
        <source>feature c</source>
        <translation>特征 c</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>query %1 “%2”: attention in every head</source>
        <translation>查询 %1“%2”：各个头中的注意力</translation>
    </message>
    <message>
        <source>a_ij</source>
        <translation>a_ij</translation>
    </message>
    <message>
        <source>content</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>query %1, head %2: logit terms</source>
        <translation>查询 %1，头 %2：logit 分项</translation>
    </message>
    <message>
        <source> (%1 masked)</source>
        <translation>（%1 个被掩码）</translation>
    </message>
    <message>
        <source>term</source>
        <translation>项</translation>
    </message>
    <message>
        <source>Export stage into folder</source>
        <translation>将阶段导出到文件夹</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Preparing this stage (up to %1 million cells)…</source>
        <translation>正在准备这一阶段（最多 %1 百万个单元格）…</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>rotation</source>
        <translation>旋转</translation>
    </message>
    <message>
        <source>sum S</source>
        <translation>总和 S</translation>
    </message>
</context>
<context>
    <name>pe::TokenBar</name>
    <message>
        <source>position %1: padding (masked as a key)</source>
        <translation>位置 %1：填充（作为键被掩码）</translation>
    </message>
    <message>
        <source>position %1: click to focus this query</source>
        <translation>位置 %1：点击以关注此查询</translation>
    </message>
</context>
<context>
    <name>pe::TourDialog</name>
    <message>
        <source>Encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>The position matrix P the scheme adds to the tokens, its similarity P·Pᵀ, and chosen columns against position. Schemes without a P show their own tables here.</source>
        <translation>方案加到词元上的位置矩阵 P、它的相似度 P·Pᵀ，以及所选各列随位置的变化。没有 P 的方案在这里显示它们自己的表。</translation>
    </message>
    <message>
        <source>Relative</source>
        <translation>相对位置</translation>
    </message>
    <message>
        <source>The relative index or bucket matrix and the per-head bias: where the scheme reads j − i.</source>
        <translation>相对索引或分桶矩阵，以及每个头的偏置：方案在哪里读取 j − i。</translation>
    </message>
    <message>
        <source>Logit terms</source>
        <translation>Logit 分项</translation>
    </message>
    <message>
        <source>The logits split into their content and position terms.</source>
        <translation>拆分为内容项和位置项的 logits。</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>The attention weights of every head; the line above the maps names the weights in use. Pick a head and a query row at the top right.</source>
        <translation>每个头的注意力权重；热力图上方的一行注明所用的权重。在右上角选择头和查询行。</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Two schemes (or a gallery) on the same input, and their difference.</source>
        <translation>两种方案（或一组方案）在同一输入上的结果，以及它们的差。</translation>
    </message>
    <message>
        <source>Stepper</source>
        <translation>逐步演示</translation>
    </message>
    <message>
        <source>One layer stage by stage, from tokens to output, with the probe that asks whether identical tokens can be told apart.</source>
        <translation>逐阶段展示一层，从词元到输出，并附带一个探针：相同的词元能否被区分开。</translation>
    </message>
    <message>
        <source>Lab</source>
        <translation>实验室</translation>
    </message>
    <message>
        <source>Train a small model with a scheme on a toy task and test it on longer sequences than it saw; open the trained model in every view.</source>
        <translation>用某种方案在玩具任务上训练一个小模型，并在比训练时更长的序列上测试；还可在各视图中打开训练好的模型。</translation>
    </message>
    <message>
        <source>Tour of the tabs</source>
        <translation>标签页导览</translation>
    </message>
    <message>
        <source>Don&apos;t show this tour at start again</source>
        <translation>启动时不再显示此导览</translation>
    </message>
    <message>
        <source>&amp;Back</source>
        <translation>上一页(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Next</source>
        <translation>下一页(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
    <message>
        <source>&amp;Done</source>
        <translation>完成(&amp;D)</translation>
    </message>
    <message>
        <source>Insights</source>
        <translation>洞察</translation>
    </message>
    <message>
        <source>Why the schemes work, one argument of the d2l chapter per page: sinusoids as binary digits, the fixed map that shifts P, what attention costs, attention against distance, stacked layers.</source>
        <translation>这些方案为何有效，每页一个 d2l 该章的论点：正弦函数如同二进制数位、平移 P 的固定映射、注意力的代价、注意力随距离的变化、堆叠多层。</translation>
    </message>
</context>
<context>
    <name>pe::TraceViews</name>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Head shown by the per-head views (bias, logit terms, enlarged attention)</source>
        <translation>按头显示的视图（偏置、logit 分项、放大的注意力）所显示的头</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>Query row i whose attention weights are plotted; right-click a row of the enlarged map to pick it</source>
        <translation>绘制其注意力权重的查询行 i；也可在放大的热力图上右键点击一行来选择</translation>
    </message>
    <message>
        <source>columns of P:</source>
        <translation>P 的列：</translation>
    </message>
    <message>
        <source>Feature columns of P to plot against position, separated by spaces (d2l&apos;s figure uses 6 7 8 9: the sin/cos pairs m = 3, 4 of the interleaved layout, frequencies ω_m = base^(−2m/d))</source>
        <translation>要随位置绘制的 P 的特征列，以空格分隔（d2l 的图用 6 7 8 9：交错排布中 m = 3、4 的 sin/cos 对，频率 ω_m = base^(−2m/d)）</translation>
    </message>
    <message>
        <source>&amp;Encoding</source>
        <translation>位置编码(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Relative</source>
        <translation>相对位置(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Logit terms</source>
        <translation>Logit 分项(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Attention</source>
        <translation>注意力(&amp;A)</translation>
    </message>
    <message>
        <source>%1 adds no absolute encoding P to the input: see the Relative and Logit terms tabs.</source>
        <translation>%1 不向输入添加绝对位置编码 P：请看“相对位置”和“Logit 分项”标签页。</translation>
    </message>
    <message>
        <source>This engine&apos;s pooled mode (n = %1) returns the attention only; the CPU engine also keeps E, P and X.</source>
        <translation>此引擎的池化模式（n = %1）只返回注意力；CPU 引擎还会保留 E、P 和 X。</translation>
    </message>
    <message>
        <source>no position matrix P</source>
        <translation>无位置矩阵 P</translation>
    </message>
    <message>
        <source>columns of X:</source>
        <translation>X 的列：</translation>
    </message>
    <message>
        <source>X</source>
        <translation>X</translation>
    </message>
    <message>
        <source>P</source>
        <translation>P</translation>
    </message>
    <message>
        <source>input X = E (no position added)</source>
        <translation>输入 X = E（未加位置信息）</translation>
    </message>
    <message>
        <source>position matrix P</source>
        <translation>位置矩阵 P</translation>
    </message>
    <message>
        <source>%1[p, c]</source>
        <translation>%1[p, c]</translation>
    </message>
    <message>
        <source>feature c</source>
        <translation>特征 c</translation>
    </message>
    <message>
        <source>position p</source>
        <translation>位置 p</translation>
    </message>
    <message>
        <source>similarity X·Xᵀ (the tokens alone)</source>
        <translation>相似度 X·Xᵀ（仅词元）</translation>
    </message>
    <message>
        <source>x_i · x_j</source>
        <translation>x_i · x_j</translation>
    </message>
    <message>
        <source>position similarity P·Pᵀ</source>
        <translation>位置相似度 P·Pᵀ</translation>
    </message>
    <message>
        <source>p_i · p_j</source>
        <translation>p_i · p_j</translation>
    </message>
    <message>
        <source>position j</source>
        <translation>位置 j</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>col %1</source>
        <translation>第 %1 列</translation>
    </message>
    <message>
        <source>columns of %1 against position</source>
        <translation>%1 的各列随位置的变化</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>relative index / bucket</source>
        <translation>相对索引 / 桶</translation>
    </message>
    <message>
        <source>index</source>
        <translation>索引</translation>
    </message>
    <message>
        <source>URPE table C[j − i], head 0</source>
        <translation>URPE 表 C[j − i]，头 0</translation>
    </message>
    <message>
        <source>C</source>
        <translation>C</translation>
    </message>
    <message>
        <source>%1 has no relative index</source>
        <translation>%1 没有相对索引</translation>
    </message>
    <message>
        <source>no relative index</source>
        <translation>无相对索引</translation>
    </message>
    <message>
        <source>bias, head %1</source>
        <translation>偏置，头 %1</translation>
    </message>
    <message>
        <source>b_ij</source>
        <translation>b_ij</translation>
    </message>
    <message>
        <source>%1 has no additive bias</source>
        <translation>%1 没有加性偏置</translation>
    </message>
    <message>
        <source>no additive bias</source>
        <translation>无加性偏置</translation>
    </message>
    <message>
        <source>%1 has %2.</source>
        <translation>%1：%2。</translation>
    </message>
    <message>
        <source> and </source>
        <translation>，</translation>
    </message>
    <message>
        <source>%1, head %2</source>
        <translation>%1，头 %2</translation>
    </message>
    <message>
        <source>no attention weights</source>
        <translation>无注意力权重</translation>
    </message>
    <message>
        <source>Head %1: click to enlarge</source>
        <translation>头 %1：点击放大</translation>
    </message>
    <message>
        <source>▶ head %1</source>
        <translation>▶ 头 %1</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>attention weights, head %1</source>
        <translation>注意力权重，头 %1</translation>
    </message>
    <message>
        <source>a_ij</source>
        <translation>a_ij</translation>
    </message>
    <message>
        <source>weights of query %1%2, head %3</source>
        <translation>查询 %1%2 的权重，头 %3</translation>
    </message>
    <message>
        <source>key position j</source>
        <translation>键位置 j</translation>
    </message>
    <message>
        <source>key position j / %1</source>
        <translation>键位置 j / %1</translation>
    </message>
    <message>
        <source>This tab shows the relative index or bucket matrix (shaw, t5, deberta; urpe&apos;s table C) and the additive bias (t5, alibi). For %1, see the Encoding tab for what takes the place of P and the Logit terms tab for how position enters the logits.</source>
        <translation>此标签页显示相对索引或分桶矩阵（shaw、t5、deberta；urpe 的表 C）以及加性偏置（t5、alibi）。对于 %1，请在“位置编码”标签页查看替代 P 的内容，在“Logit 分项”标签页查看位置如何进入 logits。</translation>
    </message>
    <message>
        <source>position (means of %1)</source>
        <translation>位置（每 %1 个取平均）</translation>
    </message>
    <message>
        <source>Pooled mode (n = %1): the relative index and the bias of %2 are n × n matrices, which this mode does not compute (only the logits and the weights, pooled to the screen). Up to %3 positions this tab shows them; the Encoding tab shows %2&apos;s tables by distance, and the Attention and Logit terms tabs the pooled maps (zoom in for full-resolution tiles).</source>
        <translation>池化模式（n = %1）：%2 的相对索引和偏置是 n × n 矩阵，此模式不计算它们（只计算 logits 和权重，并池化到屏幕分辨率）。位置数不超过 %3 时，此标签页会显示它们；“位置编码”标签页显示 %2 按距离排列的表，“注意力”和“Logit 分项”标签页显示池化后的图（放大可计算全分辨率图块）。</translation>
    </message>
    <message>
        <source>Pooled mode (n = %1): each cell is the %2 of about %3 × %3 positions, exact, from %4&apos;s tables by distance j − i (no n × n matrix is made). Zoom in for single positions.</source>
        <translation>池化模式（n = %1）：每个格子是约 %3 × %3 个位置的%2，由 %4 按距离 j − i 排列的表精确算出（不生成 n × n 矩阵）。放大可查看单个位置。</translation>
    </message>
    <message>
        <source>largest value</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>Pooled mode (n = %1): one cell per position, from %2&apos;s tables by distance j − i (no n × n matrix is made).</source>
        <translation>池化模式（n = %1）：每个格子对应一个位置，由 %2 按距离 j − i 排列的表算出（不生成 n × n 矩阵）。</translation>
    </message>
</context>
<context>
    <name>pe::Weights</name>
    <message>
        <source>weights: identity projections</source>
        <translation>权重：恒等投影</translation>
    </message>
    <message>
        <source>weights: trained</source>
        <translation>权重：已训练</translation>
    </message>
    <message>
        <source>weights: random, seed %1</source>
        <translation>权重：随机，种子 %1</translation>
    </message>
    <message>
        <source>weights: trained: %1</source>
        <translation>权重：已训练：%1</translation>
    </message>
</context>
</TS>

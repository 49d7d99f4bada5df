select `t1`.`id` as `c0`
from `articles` as `t1`
where (year(`t1`.`published`) = ? and (
    select count(*)
    from `comments` as `t2`
    where `t2`.`article` = `t1`.`id`) > ? and (dayofweek(`t1`.`created`) - 1) in (?, ?) and (case when `t1`.`tags` is null or `t1`.`tags` = '' then 0 else length(`t1`.`tags`) - length(replace(`t1`.`tags`, ',', '')) + 1 end) >= ?)
order by `t1`.`id`
limit ?
-- values: [2024,1,0,6,2,100]
